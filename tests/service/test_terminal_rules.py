"""The terminal's ``rules`` command: the players' rules in the game's language, mid-game."""

from __future__ import annotations

from pathlib import Path

import pytest

from kolkhoz_tg import rules_doc, terminal
from kolkhoz_tg.i18n import translator
from kolkhoz_tg.service import open_service
from tests.conftest import make_settings
from tests.service.helpers import terminal_args


@pytest.mark.parametrize(
    ("lang", "word", "heading", "section"),
    [
        ("en", "rules", "Requisition in detail", "Original — original"),
        ("ru", "правила", "Реквизиция подробно", "«Оригинал» — original"),
        ("ru", "RULES", "Реквизиция подробно", "«Зонский режим» — zone"),
    ],
)
def test_rules_at_the_prompt(tmp_path: Path, lang: str, word: str, heading: str,
                             section: str) -> None:
    db = tmp_path / "r.sqlite3"
    out: list[str] = []
    prompts: list[str] = []
    script = iter([word, "q"])

    def answer(prompt: str) -> str:
        prompts.append(prompt)
        return next(script)

    code = terminal.run(terminal_args(db, lang=lang, seed="7", preset="original"), input_fn=answer,
                        output=out.append)
    assert code == 0
    (rules,) = [text for text in out if heading in text]
    assert section in rules
    assert "**" not in rules and "`" not in rules  # plain text, not Markdown
    assert rules == terminal.rules_text(translator(lang))
    # The prompt names the command, and the game is untouched: the same turn is asked twice.
    assert ("rules" if lang == "en" else "правила") in prompts[-1]
    assert prompts[0] == prompts[1]
    service = open_service(f"sqlite:///{db}", settings=make_settings())
    (game,) = service.games_of_user(terminal.LOCAL_USER)
    assert service.game_info(game.id).status == "active"
    service.db.dispose()


def test_help_mentions_rules(tmp_path: Path) -> None:
    out: list[str] = []
    script = iter(["help", "q"])
    terminal.run(terminal_args(tmp_path / "h.sqlite3", lang="en", seed="7"),
                 input_fn=lambda _p: next(script), output=out.append)
    assert any("rules" in line and "q stops" in line for line in out)


def test_rules_text_wraps_to_the_width() -> None:
    for lang in ("en", "ru"):
        text = terminal.rules_text(translator(lang), width=60)
        assert all(len(line) <= 60 for line in text.splitlines())
        plain = rules_doc.plain_rules(lang)
        assert plain is not None and text.split() == plain.split()  # only the wrapping differs


def test_rules_without_the_docs(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setattr(rules_doc, "DOCS_DIR", tmp_path)
    assert "docs/RULES.md" in terminal.rules_text(translator("en"))
    assert "docs/RULES.ru.md" in terminal.rules_text(translator("ru"))


def test_long_text_goes_through_the_pager_only_for_a_person(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """At a terminal (stdin and stdout are ttys, output is print) the rules go to the
    standard pager; piped, or to a test's output, they are printed as they are."""
    import pydoc
    import sys

    paged: list[str] = []
    printed: list[str] = []
    monkeypatch.setattr(pydoc, "pager", paged.append)
    monkeypatch.setattr("builtins.print", printed.append)
    for tty in (True, False):
        monkeypatch.setattr(sys.stdin, "isatty", lambda tty=tty: tty, raising=False)
        monkeypatch.setattr(sys.stdout, "isatty", lambda tty=tty: tty, raising=False)
        terminal.show_long(f"rules {tty}", print)
    collected: list[str] = []
    terminal.show_long("rules to a list", collected.append)
    assert paged == ["rules True"]
    assert printed == ["rules False"]
    assert collected == ["rules to a list"]
