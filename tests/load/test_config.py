"""site.toml: defaults, unknown keys, wrong types, base URL normalisation."""

from pathlib import Path

from site_builder.load.config import SiteConfig, load_config


def write(tmp_path: Path, text: str) -> Path:
    (tmp_path / "site.toml").write_text(text)
    return tmp_path


def test_missing_file_gives_documented_defaults(tmp_path: Path):
    config, problems = load_config(tmp_path)
    assert problems == [] and config == SiteConfig()
    assert (config.title, config.language, config.base_url, config.pretty_urls) == ("Glossary", "en", "", False)


def test_values_and_base_url_normalised(tmp_path: Path):
    config, problems = load_config(write(tmp_path, 'title = "T"\nbase_url = "https://x.org/a"\npretty_urls = true\n'))
    assert problems == []
    assert (config.title, config.base_url, config.pretty_urls) == ("T", "https://x.org/a/", True)
    assert config.with_base_url("https://y.org/b//").base_url == "https://y.org/b/"
    assert config.with_base_url(None) is config


def test_unknown_key_is_a_warning_on_its_line(tmp_path: Path):
    _, problems = load_config(write(tmp_path, 'title = "T"\ntitel = "oops"\n'))
    (problem,) = problems
    assert problem.severity == "warning" and problem.line == 2 and "titel" in problem.message


def test_wrong_type_is_an_error(tmp_path: Path):
    _, problems = load_config(write(tmp_path, 'title = 3\npretty_urls = "yes"\n'))
    assert [p.severity for p in problems] == ["error", "error"]
    assert [p.line for p in problems] == [1, 2]


def test_messages_are_worded_as_documented(tmp_path: Path):
    _, problems = load_config(write(tmp_path, 'titel = "x"\nlanguage = "en GB"\nfooter = 3\n'))
    assert sorted((p.line, p.message) for p in problems) == [
        (1, "unknown key 'titel' (known keys: allow_raw_html, autolink, autolink_unit, base_url, description, extra_css, extra_js, footer, footer_links, header_links, language, logo, media_max_mb, pretty_urls, previews, report_orphans, search, search_code, title, usage_files)"),
        (2, "'language' contains whitespace (U+0020); it is one language tag, without spaces or line breaks"),
        (3, "'footer' must be a str, not int"),
    ]
