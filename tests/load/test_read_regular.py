"""``files.read_regular``, which reads every term file: one ``os.read`` of the
size ``fstat`` gave (and one byte more), on to the end when the file grew."""

from __future__ import annotations

import os

import pytest

from site_builder import files


def test_a_file_is_read_whole_at_any_size(tmp_path):
    for size in (0, 1, 4095, 4096, 65537, 300_000):
        path = tmp_path / f"f{size}"
        data = bytes(i % 251 for i in range(size))
        path.write_bytes(data)
        assert files.read_regular(path, follow=True, owned=False) == data


def test_a_file_that_grew_after_its_size_was_taken_is_read_to_its_end(tmp_path, monkeypatch):
    """The size is only where the first read stops: what is past it is read too."""
    path = tmp_path / "grown.md"
    data = b"x" * 200_000
    path.write_bytes(data)
    real = os.fstat

    def smaller(descriptor):
        info = real(descriptor)
        return os.stat_result((info.st_mode, info.st_ino, info.st_dev, info.st_nlink, info.st_uid, info.st_gid,
                               10, info.st_atime, info.st_mtime, info.st_ctime))

    monkeypatch.setattr(files.os, "fstat", smaller)
    assert files.read_regular(path, follow=True, owned=False) == data


def test_the_limit_and_a_fifo_are_refused(tmp_path):
    path = tmp_path / "big.md"
    path.write_bytes(b"y" * 101)
    with pytest.raises(ValueError, match="101 bytes; the limit is 100"):
        files.read_regular(path, follow=True, owned=False, limit=100)
    fifo = tmp_path / "pipe.md"
    os.mkfifo(fifo)
    with pytest.raises(files.RefusedPath, match="a FIFO"):
        files.read_regular(fifo, follow=True, owned=False)


def test_a_short_read_is_not_taken_for_the_end(tmp_path, monkeypatch):
    """A file system may give fewer bytes than asked before the end (FUSE, 9p,
    NFS; any read over ~2 GiB): the rest is read on, not dropped."""
    path = tmp_path / "far.md"
    data = bytes(i % 241 for i in range(100_000))
    path.write_bytes(data)
    real = os.read
    monkeypatch.setattr(files.os, "read", lambda descriptor, size: real(descriptor, min(size, 4096)))
    assert files.read_regular(path, follow=True, owned=False) == data
