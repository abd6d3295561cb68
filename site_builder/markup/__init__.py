"""markup"""
