"""Code-aware normalisation: code words stay themselves, acronyms and identifiers match."""

from __future__ import annotations

import pytest

from memcli.analysis.text import index_terms, query_groups
from memcli.search import search


def slugs(hits) -> list[str]:
    return [h.slug for h in hits]


@pytest.mark.parametrize(("code_word", "other"), [
    ("go", "went"), ("go", "gone"), ("make", "made"), ("lead", "LED"), ("lead", "led"),
    ("drive", "driven"), ("information", "info"), ("get", "got"), ("win", "won't"),
    ("mother", "mom"), ("child", "kid"), ("bicycle", "bike"),
])
def test_no_word_form_turns_one_code_word_into_another(code_word, other):
    assert set(index_terms(code_word).split()).isdisjoint(index_terms(other).split())


@pytest.mark.parametrize(("a", "b"), [
    ("LED", "LEDs"), ("PR", "PRs"), ("API", "APIs"), ("pr", "PRs"),
    ("max_retries", "maxRetries"), ("max_retries", "max-retries"),
])
def test_same_term(a, b):
    assert index_terms(a) == index_terms(b)


def test_all_caps_words_are_not_stemmed_or_looked_up():
    assert index_terms("LED SAS NEWS") == "led sas news"  # Snowball would give "sa", "news"→"news"
    assert index_terms("running MADE") == "run made"


@pytest.mark.parametrize(("text", "whole", "parts"), [
    ("max_retries", "max_retries", {"max", "retri"}),
    ("maxRetries", "max_retries", {"max", "retri"}),
    ("os.path.join", "os_path_join", {"os", "path", "join"}),
    ("memcli/search/text.py", "memcli_search_text_py", {"search", "text", "py"}),
    ("--include-replaced", "include_replaced", {"includ", "replac"}),
    ("v1.2.3", "v1_2_3", {"v1", "2", "3"}),
    ("made_by", "made_by", {"made"}),  # parts skip the word-form table
])
def test_identifiers_give_the_whole_and_the_parts(text, whole, parts):
    terms = index_terms(text).split()
    assert terms[0] == whole
    assert parts <= set(terms[1:])
    assert query_groups(text)[0].terms == (whole,)


def test_go_as_written_does_not_find_went(records):
    records.decision("use-go", "The importer is written in Go for its static binaries.")
    records.request("holiday", "She went home early; the deploy had gone fine.")
    for query in ("Go", "GO", "Go binaries"):
        assert slugs(search(records.root, query)) == ["use-go"]
    # a lowercase word also finds its other forms, below the word as written
    assert slugs(search(records.root, "go")) == ["use-go", "holiday"]
    assert slugs(search(records.root, "went")) == ["holiday", "use-go"]


def test_make_and_info_stay_code_words(records):
    records.knowledge("build-with-make", "Build with make", "Run make all before pushing.", kind="howto")
    records.decision("made-by-hand", "The fixtures were made by hand from the information we had.")
    records.decision("log-levels", "Log at info level in production, debug locally.")
    assert slugs(search(records.root, "make")) == ["build-with-make", "made-by-hand"]
    assert slugs(search(records.root, "Make")) == ["build-with-make"]
    assert slugs(search(records.root, "info")) == ["log-levels"]


def test_plural_acronyms_match(records):
    records.decision("status-leds", "The board shows build status on three LEDs.")
    records.decision("pr-template", "Every PR needs a linked issue.")
    records.decision("lead-dev", "The lead developer reviews the release notes.")
    assert slugs(search(records.root, "LED")) == ["status-leds"]
    assert slugs(search(records.root, "PRs")) == ["pr-template"]


def test_identifiers_match_whole_and_by_parts(records):
    records.decision("retry-limit", "Set `max_retries` to 5 in config.toml; the client gives up after that.")
    records.decision("retry-prose", "We retry at most five times before giving up.")
    records.decision("cli-flag", "Pass --include-replaced to see old decisions.")
    records.decision("version-pin", "Pin Python 3.11 in CI; 3.12 broke the wheel build.")
    assert slugs(search(records.root, "maxRetries"))[0] == "retry-limit"
    assert slugs(search(records.root, "max_retries"))[0] == "retry-limit"
    assert "retry-limit" in slugs(search(records.root, "retries"))
    assert slugs(search(records.root, "include-replaced")) == ["cli-flag"]
    assert slugs(search(records.root, "3.11")) == ["version-pin"]
    assert slugs(search(records.root, "config.toml")) == ["retry-limit"]


@pytest.mark.parametrize(("query", "alternatives"), [
    ("where did she go", {"go": ("went", "gone", "goe")}),
    ("went", {"went": ("go", "gone", "goe")}),
    ("making", {"make": ("made",)}),
    ("flying", {"fli": ("fly", "flew", "flown")}),  # Snowball: flies, flying → fli; fly stays fly
    ("led the team", {"led": ("lead",), "team": ()}),
    ("Go modules", {"go": (), "modul": ()}),  # capitalised: the language, as written
    ("GO", {"go": ()}),  # ALL-CAPS
    ("LED", {"led": ()}),
    ("go_mod", {"go_mod": (), "go": (), "mod": ()}),  # parts of an identifier
    ("goRoutine", {"go_routine": (), "go": (), "routin": ()}),
    ("won't", {"won": ()}),  # a contraction's first part is not a word form
    ("bought", {"buy": ()}),  # joined in the index already (irregular.BASE)
])
def test_lowercase_words_of_code_word_families_carry_their_other_forms(query, alternatives):
    assert {g.terms[0]: g.alternatives for g in query_groups(query)} == alternatives


def test_other_forms_match_below_the_word_as_written(records):
    records.request("paris", "She went to Paris in May.")
    records.request("beach", "She wants to go to the beach.")
    records.request("books", "She reads two books a week.")
    assert slugs(search(records.root, "where did she go")) == ["beach", "paris"]
    assert slugs(search(records.root, "where did she go in May")) == ["paris", "beach"]


def test_go_modules_do_not_find_went(records):
    records.decision("go-modules", "Go modules are vendored; the build runs offline.")
    records.decision("went-with", "We went with the offline build for the release modules.")
    assert slugs(search(records.root, "Go modules"))[0] == "go-modules"
    assert slugs(search(records.root, "go modules"))[0] == "go-modules"


def test_lead_finds_the_lead_before_an_led(records):
    records.decision("status-leds", "The board shows the build status on a red LED.")
    records.decision("tech-lead", "The tech lead approves releases.")
    assert slugs(search(records.root, "who is the tech lead")) == ["tech-lead", "status-leds"]
    assert slugs(search(records.root, "red LED")) == ["status-leds"]


def test_a_word_found_in_another_form_is_not_a_typo(records):
    records.request("hiking", "They go hiking every weekend.")
    records.request("west", "The west office opens at nine.")  # "west" is one edit from "went"
    assert slugs(search(records.root, "went hiking")) == ["hiking"]
