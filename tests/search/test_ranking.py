"""Ranking on small crafted workspaces, in English and Japanese."""

from __future__ import annotations

import pytest

from memcli.analysis.text import Group
from memcli.search import MARK_CLOSE, MARK_OPEN, SearchIndex, search


def slugs(hits) -> list[str]:
    return [h.slug for h in hits]


FILLER = "The team talked about several unrelated things during the weekly planning meeting. " * 3


def test_slug_match_outranks_body_mention(records):
    records.decision("redis-cache", "Put a cache in front of the slow pricing endpoint.")
    records.decision("pricing-endpoint", FILLER + "We could also use redis some day.")
    assert slugs(search(records.root, "redis"))[:2] == ["redis-cache", "pricing-endpoint"]


def test_description_match_outranks_body_mention(records):
    records.knowledge("db-copies", "How to take a backup of the database", "Run the online API.")
    records.decision("nightly-jobs", FILLER + "A backup is also mentioned here.")
    assert slugs(search(records.root, "backup")) == ["db-copies", "nightly-jobs"]


def test_more_query_words_matched_ranks_higher(records):
    records.request("one-word", "Deploy on Fridays is fine.")
    records.request("two-words", "Deploy with the blue green switch.")
    assert slugs(search(records.root, "blue green deploy"))[0] == "two-words"


@pytest.mark.parametrize("query", ["use-sqlte-wal", "use sqlite wall", "USE-SQLITE-WAL"])
def test_typo_in_slug_still_finds_the_record_first(records, query):
    records.decision("use-sqlite-wal", "Store data in one file with write-ahead logging.")
    records.decision("use-postgres", "Use a server database when we outgrow one file.")
    records.decision("wal-checkpoints", "Use checkpoints so the log does not grow.")
    assert slugs(search(records.root, query))[0] == "use-sqlite-wal"


def test_stemmed_words_match(records):
    records.knowledge("nightly-backups", "Backups run every night", "They are kept for a week.")
    assert slugs(search(records.root, "backup")) == ["nightly-backups"]
    assert slugs(search(records.root, "running")) == ["nightly-backups"]


def test_japanese_two_character_substring_found(records):
    records.request("commit-language", "コミットメッセージは日本語でもよい。")
    records.request("english-only", "Write docs in English.")
    assert slugs(search(records.root, "日本")) == ["commit-language"]
    assert slugs(search(records.root, "本語で")) == ["commit-language"]
    assert slugs(search(records.root, "メッセージ")) == ["commit-language"]
    assert search(records.root, "英国") == []


def test_japanese_exact_phrase_ranks_above_its_pieces(records):
    records.request("near", "日本の語学")  # 日本 and 語 but not 日本語
    records.request("exact", "日本語の文書")
    assert slugs(search(records.root, "日本語")) == ["exact", "near"]


def test_japanese_query_without_spaces_mixes_with_english(records):
    records.decision("db-choice", "データベースは SQLite を使う。WAL モードで運用する。")
    records.decision("queue-choice", "ジョブキューはスレッドで処理する。")
    hits = search(records.root, "SQLiteのデータベース")
    assert slugs(hits)[0] == "db-choice"


def test_full_width_latin_is_normalised(records):
    records.decision("use-sqlite", "We use SQLite.")
    assert slugs(search(records.root, "ＳＱＬｉｔｅ")) == ["use-sqlite"]


def test_filters_by_type_kind_and_status(records):
    records.decision("cache-open", "Cache question still open.", status="open")
    records.decision("cache-done", "Cache decided.", status="resolved")
    records.knowledge("cache-term", "What cache means here", "A cache.", kind="term")
    records.knowledge("cache-how", "How to clear the cache", "Run clear.", kind="howto")
    records.workflow("cache-flow", "Warm the cache", "Steps.")
    records.summary("The cache is important.")
    root = records.root
    assert set(slugs(search(root, "cache", types=["knowledge"]))) == {"cache-term", "cache-how"}
    assert slugs(search(root, "cache", kind="howto")) == ["cache-how"]
    assert slugs(search(root, "cache", status="open")) == ["cache-open"]
    assert set(slugs(search(root, "cache", types=["decision", "workflow"]))) == {
        "cache-open", "cache-done", "cache-flow"}
    assert slugs(search(root, "cache", types=["summary"])) == ["summary"]


def test_replaced_decisions_rank_below_their_replacement_and_are_marked(records):
    records.decision("sync-mail", "Send mail synchronously from the request handler, mail after mail.",
                     status="replaced", replaced_by="async-mail")
    records.decision("async-mail", "Send mail from a background thread.")
    hits = search(records.root, "mail")
    assert slugs(hits) == ["async-mail", "sync-mail"]  # the old one matches better, still comes second
    assert (hits[1].status, hits[1].replaced_by) == ("replaced", "async-mail")
    assert hits[0].replaced_by is None and "replaced_by" not in hits[0].to_json()
    assert slugs(search(records.root, "mail", status="replaced")) == ["sync-mail"]


def test_replaced_chain_ranks_newest_first(records):
    records.decision("mail-v1", "Mail mail mail via cron.", status="replaced", replaced_by="mail-v2")
    records.decision("mail-v2", "Mail mail via a thread.", status="replaced", replaced_by="mail-v3")
    records.decision("mail-v3", "Mail via the queue service.")
    assert slugs(search(records.root, "mail")) == ["mail-v3", "mail-v2", "mail-v1"]


def test_replaced_decisions_off_the_subject_are_hidden_unless_asked(records):
    records.decision("sync-mail", "Send mail synchronously; retries are manual.",
                     status="replaced", replaced_by="async-mail")
    records.decision("async-mail", "Send mail from a background thread with retries and backoff.")
    # "retries backoff jitter": the old decision holds one word of three, it is not about it
    assert slugs(search(records.root, "retries backoff jitter")) == ["async-mail"]
    assert slugs(search(records.root, "retries backoff jitter", include_replaced=True)) == [
        "async-mail", "sync-mail"]


BEFORE = "how did we deliver reminder emails before we changed it"  # four words: deliv remind email chang


def test_a_question_about_the_past_finds_the_replaced_decision_it_matches_alone(records):
    # The old decision holds one of the question's four words: not "about" it by the half rule,
    # but it is the best (and only) match, so hiding it would answer nothing at all.
    records.decision("cron-mail", "Emails went out from a nightly cron script.", status="replaced",
                     replaced_by="queue-mail")
    records.decision("queue-mail", "Outgoing messages go through the task queue now.")
    records.decision("deploy-steps", "Deploy from the main branch after the checks pass.")
    hits = search(records.root, BEFORE)
    assert slugs(hits) == ["cron-mail"]
    assert (hits[0].status, hits[0].replaced_by) == ("replaced", "queue-mail")


def test_a_best_matching_replaced_decision_is_shown_below_its_replacement(records):
    records.decision("cron-mail", "Emails, emails and more emails went out from a nightly cron script.",
                     status="replaced", replaced_by="queue-mail")
    records.decision("queue-mail", "Emails go through the task queue now.")
    assert slugs(search(records.root, BEFORE)) == ["queue-mail", "cron-mail"]


def test_only_the_best_match_is_spared_the_about_rule(records):
    # Two replaced decisions match one word of four; only the better one is shown.
    records.decision("cron-mail", "Emails, emails and more emails went out from a nightly cron script.",
                     status="replaced", replaced_by="queue-mail")
    records.decision("smtp-mail", "Emails went out through our own SMTP relay for a while.",
                     status="replaced", replaced_by="queue-mail")
    records.decision("queue-mail", "Outgoing messages go through the task queue now.")
    assert slugs(search(records.root, BEFORE)) == ["cron-mail"]
    assert slugs(search(records.root, BEFORE, include_replaced=True)) == ["cron-mail", "smtp-mail"]


def test_replaced_decision_without_its_replacement_among_hits_ranks_below_a_current_one(records):
    records.decision("old-db", "Use MySQL for the database, MySQL everywhere.",
                     status="replaced", replaced_by="new-db")
    records.decision("new-db", "Postgres is the store of record.")
    records.decision("db-backups", "Back up the database nightly.")
    assert slugs(search(records.root, "database")) == ["db-backups", "old-db"]


def test_limit(records):
    for i in range(15):
        records.request(f"note-{i}", f"Shared word apple number {i}.")
    assert len(search(records.root, "apple")) == 10
    assert len(search(records.root, "apple", limit=3)) == 3


def test_hit_fields_and_snippet_markers(records):
    records.knowledge("wal-mode", "What WAL mode does", "Readers continue while one writer commits.",
                      kind="term", invocation=False)
    records.decision("use-wal", "Use WAL mode for the datastore.\n\nWhy: readers never wait.")
    by_slug = {h.slug: h for h in search(records.root, "readers")}
    k = by_slug["wal-mode"]
    assert (k.path, k.type, k.kind, k.model_invocation, k.status) == (
        "knowledge/wal-mode.md", "knowledge", "term", False, None)
    assert k.description == "What WAL mode does"
    assert f"{MARK_OPEN}Readers{MARK_CLOSE}" in k.snippet
    d = by_slug["use-wal"]
    assert (d.type, d.status, d.kind) == ("decision", "resolved", None)
    assert d.description == "Use WAL mode for the datastore."  # first body line for kinds without one
    assert f"{MARK_OPEN}readers{MARK_CLOSE}" in d.snippet
    assert k.score > 0 and d.score > 0


def test_japanese_snippet_marks_the_substring(records):
    records.request("commit-language", "コミットメッセージは日本語でもよい。")
    (hit,) = search(records.root, "日本")
    assert f"{MARK_OPEN}日本{MARK_CLOSE}語" in hit.snippet


@pytest.mark.parametrize(
    "query",
    ['"', "*", "NEAR(cache mail)", "cache AND", "-cache", "body:cache", "cache OR", "(((", "^cache",
     "'; DROP TABLE docs; --", "\x00cache", "c" * 10_000, "cache " * 2_000, "日本語" * 1000],
)
def test_fts_syntax_and_huge_queries_are_plain_text(records, query):
    records.decision("cache-done", "Cache decided.")
    hits = search(records.root, query)
    assert isinstance(hits, list)
    if "cache" in query.lower():
        assert slugs(hits) == ["cache-done"]


@pytest.mark.parametrize("query", ["", "   ", "?!…", "the of and"])
def test_no_searchable_words(records, query):
    records.decision("plain", "The cost of this and that.")
    assert search(records.root, query) == []  # stopwords are not indexed: nothing to match


def test_arbitrary_directory_in_memory(records):
    records.decision("scratch-copy", "A scratch copy of the workspace.")
    with SearchIndex(records.root) as index:
        assert index.db_path is None
        assert slugs(index.search("scratch")) == ["scratch-copy"]


def _big_workspace(records, n=60):
    for i in range(n):
        records.request(f"filler-{i}", f"Routine note {i} about weekly meetings and calendars.")


def test_feedback_reorders_but_never_brings_in_records_without_query_words(records):
    _big_workspace(records)
    records.request("apple-orchard", "Apples grow in the orchard; the orchard harvest is in autumn.")
    records.request("apple-pie", "Apple pie recipe from grandma.")
    records.request("orchard-only", "The orchard harvest needs ladders in autumn.")
    hits = search(records.root, "apples", limit=20)
    assert set(slugs(hits)) == {"apple-orchard", "apple-pie"}


def test_feedback_terms_are_distinctive_words_of_the_first_hits(records):
    from memcli.analysis.text import index_terms
    from memcli.search.expand import candidate_terms, feedback_terms

    _big_workspace(records)
    records.request("adoption-a", "Researching adoption agencies for a family.")
    records.request("adoption-b", "Adoption agencies need documents.")
    with SearchIndex(records.root) as index:
        index.refresh()
        ids = [row[0] for row in index.conn.execute("SELECT id FROM docs WHERE slug LIKE 'adoption-%'")]
        every = candidate_terms(index.conn, [row[0] for row in index.conn.execute("SELECT id FROM docs")])
        firsts = [every[i] for i in ids]
        terms = list(feedback_terms(firsts, every, {"adopt"}))
    assert terms[0] == index_terms("agencies")  # in both first hits, nowhere else
    assert "adopt" not in terms and index_terms("note") not in terms


def test_feedback_counts_each_first_hit_by_its_score():
    from memcli.search.expand import feedback_terms

    firsts = [["kayak", "lake"], ["pottery", "class"]]
    candidates = {1: firsts[0], 2: firsts[1], 3: ["note"], 4: ["note"]}
    assert list(feedback_terms(firsts, candidates, set(), [1.0, 0.4]))[:2] == ["kayak", "lake"]
    assert list(feedback_terms(firsts, candidates, set(), [0.4, 1.0]))[:2] == ["class", "pottery"]


def test_query_words_side_by_side_outrank_the_same_words_apart(records):
    # "apart" is shorter, so it wins on BM25 alone; the adjacent pair must turn that around.
    records.request("apart", "Shelter dogs: homeless people fed them.")
    records.request("together", "The volunteers cooked food at the homeless shelter downtown.")
    assert slugs(search(records.root, "homeless shelter")) == ["together", "apart"]


def test_repeating_one_query_word_does_not_beat_matching_two(records):
    records.request("repeats", "Backup backup backup: the backup of the backup folder.")
    records.request("both", "Backup, then restore it on a spare machine.")
    assert slugs(search(records.root, "backup restore")) == ["both", "repeats"]


def test_a_word_in_most_records_still_counts(records):
    from memcli.search import bm25
    from memcli.search.expand import candidate_fields
    from memcli.search.rank import WEIGHTS

    for i in range(5):
        records.request(f"alice-{i}", f"Alice wrote note number {i}.")
    records.request("bob", "Bob wrote a note.")
    with SearchIndex(records.root) as index:
        index.refresh()
        ids = [row[0] for row in index.conn.execute("SELECT id FROM docs")]
        fields = candidate_fields(index.conn, ids)
        dfs = bm25.doc_freqs(index.conn, [Group(("alic",))])
        scores = bm25.score([Group(("alic",))], dfs, fields, WEIGHTS, index.size(), index.avg_length())
    assert len(scores) == 5 and min(scores.values()) > 0.1  # FTS5's bm25() gives it ~1e-6


@pytest.mark.parametrize(("words", "group", "expected"), [
    (["sqlite", "wal", "sqlite"], ["sqlite"], 2),
    (["日本", "本語", "語で", "日本"], ["日本", "本語"], 1),
    (["一つ", "つの", "一"], ["一"], 2),
    (["wal"], ["sqlite"], 0),
])
def test_occurrences_of_terms_phrases_and_prefixes(words, group, expected):
    from memcli.search.bm25 import occurrences

    assert occurrences(words, group) == expected


def test_irregular_forms_meet_their_base(records):
    records.request("bike", "She bought a bike for the children last spring.")
    records.request("other", "She wants a car.")
    assert slugs(search(records.root, "buy bicycle child"))[0] == "bike"
    assert slugs(search(records.root, "what did she buy")) == ["bike"]
    assert slugs(search(records.root, "child")) == ["bike"]


def test_ambiguous_irregular_forms_are_left_alone():
    from memcli.analysis.text import index_terms

    assert index_terms("left ground") == "left ground"  # not "leav grind"
    assert index_terms("bought taught") == "buy teach"


def test_japanese_sentence_finds_records_holding_its_words(records):
    records.decision("holiday-deploys", "連休中の本番デプロイは禁止。緊急の修正だけ二人で確認して出す。")
    records.decision("deploy-steps", "デプロイ手順: タグを打ってから CI を待つ。")
    records.decision("holiday-schedule", "連休の予定表は共有カレンダーに置く。")
    hits = slugs(search(records.root, "連休中に本番デプロイしてもいい？"))
    assert hits[0] == "holiday-deploys"
    assert set(hits) == {"holiday-deploys", "deploy-steps", "holiday-schedule"}
    assert slugs(search(records.root, "連休 デプロイ"))[0] == "holiday-deploys"


def test_chinese_sentence_finds_records_holding_its_words(records):
    records.decision("db-choice", "我们决定使用 SQLite 数据库，因为部署简单。")
    records.decision("queue", "任务队列使用线程处理。")
    assert slugs(search(records.root, "为什么选择这个数据库"))[0] == "db-choice"


def test_japanese_sentence_snippet_marks_the_pieces(records):
    records.decision("holiday-deploys", "連休中の本番デプロイは禁止。")
    (hit,) = search(records.root, "本番デプロイしてもいい？")
    assert f"の{MARK_OPEN}本番デプロイ{MARK_CLOSE}は" in hit.snippet  # 本番 and デプロイ, side by side


@pytest.mark.parametrize("query", ["timzone handling", "timezone handlng", "timezon handling"])
def test_a_typo_in_one_word_is_forgiven(records, query):
    records.decision("timezones", "Timezone handling: store UTC, convert at the edges.")
    records.decision("errors", "Error handling: wrap at the command boundary.")
    records.decision("zones", "DNS zones are managed in the infra repository.")
    assert slugs(search(records.root, query))[0] == "timezones"


def test_typo_matches_rank_below_exact_matches(records):
    records.decision("exact-word", "The deploy script tags the release.")
    records.decision("corrected-word", "The timezone table lists offsets.")
    # each record holds one of the two words; the one holding it as typed comes first
    assert slugs(search(records.root, "deploy timzone")) == ["exact-word", "corrected-word"]
    assert slugs(search(records.root, "timezone deploi"))[0] == "corrected-word"


def test_words_present_in_the_index_are_not_corrected(records):
    records.decision("exact", "The retention policy keeps logs for a week.")
    records.decision("misspelt", "Retension is what the old wiki calls it.")
    assert slugs(search(records.root, "retention")) == ["exact"]
    assert slugs(search(records.root, "retension")) == ["misspelt"]


def test_short_words_are_not_corrected(records):
    records.decision("go-importer", "The importer is written in Go.")
    assert search(records.root, "gp") == []
