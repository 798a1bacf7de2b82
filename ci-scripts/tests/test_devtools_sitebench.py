"""`python -m devtools.sitebench` without the browser test's npm packages (or without
node) says what to install, in one line, and exits non-zero before any work."""

from __future__ import annotations

from devtools import sitebench


def test_missing_npm_packages_say_what_to_install(tmp_path, monkeypatch, capsys):
    monkeypatch.setattr(sitebench, "BROWSER_DIR", tmp_path / "browser")  # no node_modules there
    monkeypatch.setattr(sitebench.shutil, "which", lambda name: "/usr/bin/" + name)
    assert sitebench.main(["--work", str(tmp_path / "work")]) == 2
    err = capsys.readouterr().err.strip()
    assert "\n" not in err and "npm ci" in err and str(tmp_path / "browser") in err
    assert not (tmp_path / "work").exists()  # nothing generated first


def test_missing_node_says_what_to_install(tmp_path, monkeypatch, capsys):
    monkeypatch.setattr(sitebench.shutil, "which", lambda name: None)
    assert sitebench.main(["--work", str(tmp_path / "work")]) == 2
    err = capsys.readouterr().err.strip()
    assert "\n" not in err and "install Node.js" in err
