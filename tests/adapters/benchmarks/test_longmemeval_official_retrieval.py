"""LongMemEval's official retrieval rules on hand-made inputs (quirks 11-14, 17).

Expected values are derived from the rule in each test's comment, never copied from fixtures.
"""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest

from benchledger.adapters.benchmarks.longmemeval.corpus_ids import (
    flat_index, haystack_corpus, haystack_position, official_correct_docs,
)
from benchledger.adapters.benchmarks.longmemeval.loader import load_longmemeval
from benchledger.adapters.benchmarks.longmemeval.retrieval_metrics import (
    RetrievalScore, evaluate_retrieval, evaluate_retrieval_turn2session, metrics_for_question,
    strip_turn_id,
)
from benchledger.adapters.benchmarks.longmemeval.retrieval_printout import (
    averaged_retrieval_metrics, print_retrieval_metrics,
)
from benchledger.errors import BadInput


def _user(text: str, has_answer: bool | None = None) -> dict:
    turn = {"role": "user", "content": text}
    if has_answer is not None:
        turn["has_answer"] = has_answer
    return turn


def _assistant(text: str) -> dict:
    return {"role": "assistant", "content": text}


# nDCG: rel[0] + sum(rel[i] / log2(i + 1)) for i >= 1, so rank 1 and rank 2 both weigh 1.
@pytest.mark.parametrize(("gold_rank", "ndcg"), [
    (1, 1.0), (2, 1.0), (3, 1 / math.log2(3)), (4, 1 / math.log2(4)),
])
def test_a_single_gold_is_discounted_the_official_way(gold_rank: int, ndcg: float) -> None:
    corpus = [f"s_{i}" for i in range(5)]
    corpus[gold_rank - 1] = "answer_x"
    score = evaluate_retrieval(list(range(5)), ["answer_x"], corpus, k=5)
    assert score.ndcg_any == pytest.approx(ndcg, abs=1e-15)
    assert (score.recall_any, score.recall_all) == (1.0, 1.0)


def test_the_ideal_counts_every_relevant_corpus_row_even_a_duplicated_id() -> None:
    corpus = ["answer_x", "s_b", "answer_x", "s_c"]
    score = evaluate_retrieval([1, 0, 3, 2], ["answer_x"], corpus, k=4)
    # actual: relevant at ranks 2 and 4 -> 1 + 1/log2(4); ideal: ranks 1 and 2 -> 1 + 1
    assert score.ndcg_any == pytest.approx((1 + 1 / math.log2(4)) / 2)


def test_empty_gold_gives_recall_all_one_and_nothing_else() -> None:
    assert evaluate_retrieval([0, 1], [], ["s_a", "s_b"], k=2) == RetrievalScore(0.0, 1.0, 0.0)


def test_a_gold_id_missing_from_the_corpus_blocks_recall_all_only() -> None:
    score = evaluate_retrieval([0, 1], ["answer_x", "answer_gone"], ["answer_x", "s_b"], k=1)
    assert score == RetrievalScore(recall_any=1.0, recall_all=0.0, ndcg_any=1.0)


def test_a_ranking_shorter_than_k_scores_only_what_it_ranks() -> None:
    score = evaluate_retrieval([0], ["answer_x"], ["s_a", "answer_x"], k=10)
    assert score == RetrievalScore(0.0, 0.0, 0.0)


def test_strip_turn_id_cuts_only_the_last_part() -> None:
    assert strip_turn_id("sharegpt_ab_cd_0_1") == "sharegpt_ab_cd_0"
    assert strip_turn_id("answer_4be1b6b4_2_3") == "answer_4be1b6b4_2"


def test_turn2session_widens_k_until_k_distinct_sessions() -> None:
    corpus = ["s_a_1", "s_a_2", "s_a_3", "s_b_1", "answer_x_1"]
    rankings = [0, 1, 2, 3, 4]
    # k=2 needs two sessions: the top 4 turns cover s_a and s_b only, the 5th adds answer_x:
    # effective_k grows to 4 (2 sessions reached), so answer_x stays out.
    assert evaluate_retrieval_turn2session(rankings, ["answer_x_1"], corpus, k=2).recall_any == 0.0
    # k=3 widens to 5 rows and reaches answer_x at row 5: dcg 1/log2(5) over ideal 1.
    score = evaluate_retrieval_turn2session(rankings, ["answer_x_1"], corpus, k=3)
    assert score.recall_all == 1.0
    assert score.ndcg_any == pytest.approx(1 / math.log2(5))


def test_turn2session_stops_at_len_corpus_plus_one_with_too_few_sessions() -> None:
    corpus = ["s_a_1", "s_a_3", "answer_x_1"]
    score = evaluate_retrieval_turn2session([0, 1, 2], ["answer_x_1"], corpus, k=10)
    assert score.recall_any == 1.0 and score.ndcg_any == pytest.approx(1 / math.log2(3))


def test_turn2session_keeps_relevance_per_turn() -> None:
    corpus = ["answer_x_1", "s_b_1", "answer_x_3", "answer_x_5"]
    score = evaluate_retrieval_turn2session([1, 0, 2, 3], ["answer_x_1", "answer_x_3"], corpus, k=2)
    # k=2 sessions are covered by the first two rows; the ideal has three relevant rows.
    # actual rels (0, 1) -> 1/log2(2); ideal (1, 1) -> 1 + 1
    assert score.ndcg_any == pytest.approx(1 / 2)


def test_metrics_for_a_turn_run_fill_both_levels_and_a_session_run_one() -> None:
    corpus = ["s_a_1", "answer_x_1"]
    turn = metrics_for_question([1, 0], ["answer_x_1"], corpus, "turn", ks=(1,))
    assert turn == {"turn": {"recall_any@1": 1.0, "recall_all@1": 1.0, "ndcg_any@1": 1.0},
                    "session": {"recall_any@1": 1.0, "recall_all@1": 1.0, "ndcg_any@1": 1.0}}
    session = metrics_for_question([0, 1], ["answer_x"], ["s_a", "answer_x"], "session", ks=(1,))
    assert session["turn"] == {} and session["session"]["recall_any@1"] == 0.0


def test_session_ids_rename_an_answer_session_without_evidence() -> None:
    with_evidence = [_user("hi", True), _assistant("hello")]
    without = [_user("hi", False), _assistant("hello"), _user("bye", False)]
    assert flat_index("answer_ab_1", with_evidence, "session") == [("answer_ab_1", "hi", None)]
    assert flat_index("answer_ab_1", without, "session") == [("noans_ab_1", "hi bye", None)]
    assert flat_index("sharegpt_q_0", [_user("x")], "session")[0][0] == "sharegpt_q_0"


def test_turn_ids_count_all_turns_from_one_and_keep_user_turns_only() -> None:
    turns = [_user("a", False), _assistant("b"), _user("c", True), _assistant("d")]
    ids = [row[0] for row in flat_index("answer_ab_2", turns, "turn")]
    assert ids == ["noans_ab_2_1", "answer_ab_2_3"]
    assert [row[0] for row in flat_index("ultrachat_9", turns, "turn")] == ["ultrachat_9_1",
                                                                           "ultrachat_9_3"]


def test_an_answer_session_turn_without_has_answer_is_bad_input() -> None:
    with pytest.raises(BadInput, match="has_answer"):
        flat_index("answer_ab_2", [_user("a")], "turn")


def test_gold_is_every_id_containing_answer_so_noans_rows_are_not_gold() -> None:
    corpus = haystack_corpus(
        ["answer_ab_1", "s_c_2"],
        [[_user("a", True), _assistant("b"), _user("c", False)], [_user("d")]], "turn")
    assert corpus.ids == ("answer_ab_1_1", "noans_ab_1_3", "s_c_2_1")
    assert official_correct_docs(corpus.ids) == ["answer_ab_1_1"]


def test_recalled_haystack_positions_become_official_rankings() -> None:
    sessions = [[_user("a"), _assistant("b")], [_user("c", True), _assistant("d")]]
    by_session = haystack_corpus(["s_q_1", "answer_r_2"], sessions, "session")
    # turns of one session stand for its single row, ranked at its first appearance
    assert by_session.rankings([(1, 1), (0, 0), (1, 0)]) == [1, 0]
    by_turn = haystack_corpus(["s_q_1", "answer_r_2"], sessions, "turn")
    # an assistant turn has no turn-level row
    assert by_turn.rankings([(1, 1), (1, 0), (0, 0)]) == [1, 0]
    score = evaluate_retrieval(by_turn.rankings([(1, 0)]), by_turn.correct_docs, by_turn.ids, 1)
    assert score.recall_all == 1.0


def _entry(question_id: str, session: dict | None = None, turn: dict | None = None) -> tuple:
    return question_id, {"session": session or {}, "turn": turn or {}}


_SESSION = {"recall_all@5": 1.0, "ndcg_any@5": 0.5, "recall_all@10": 1.0, "ndcg_any@10": 0.5}
_TURN = {**_SESSION, "recall_all@50": 1.0, "ndcg_any@50": 0.5}


def test_the_printout_drops_a_whole_line_when_one_entry_lacks_its_keys() -> None:
    printed = print_retrieval_metrics([_entry("q1", _SESSION), _entry("q2", _SESSION, _TURN)])
    assert printed.endswith("Turn-level metrics:\n")
    assert "\trecall_all@5 = 1.0, \tndcg_any@5 = 0.5, \trecall_all@10 = 1.0" in printed


def test_the_printout_leaves_out_abstention_ids() -> None:
    zero = dict.fromkeys(_SESSION, 0.0)
    printed = print_retrieval_metrics([_entry("q1", _SESSION), _entry("q2_abs", zero)])
    assert "recall_all@5 = 1.0," in printed  # the mean of q1 alone
    averaged = averaged_retrieval_metrics([_entry("q1", _SESSION), _entry("q2_abs", zero)])
    assert averaged["session"]["ndcg_any@5"] == 0.5


def test_the_printout_rounds_numpy_s_way() -> None:
    # 0.01875 * 10**4 is 187.5 in binary, which rounds half to even: 188 -> 0.0188
    # (Python's round(0.01875, 4) gives 0.0187: 0.01875 is stored just below the half).
    values = {"recall_all@5": 0.01875, "ndcg_any@5": 0.0, "recall_all@10": 0.0, "ndcg_any@10": 0.0}
    printed = print_retrieval_metrics([_entry("q1", values)])
    assert "recall_all@5 = 0.0188," in printed
    assert round(0.01875, 4) == 0.0187


def test_a_loaded_run_s_recall_maps_onto_the_official_corpus(tmp_path: Path) -> None:
    sessions = [[_user("noise"), _assistant("ok")],
                [_user("I adopted a corgi", True), _assistant("nice"), _user("more", False)]]
    item = {"question_id": "q1", "question_type": "single-session-user", "question": "Pet?",
            "answer": "corgi", "question_date": "2024/06/02 (Sun) 18:05",
            "haystack_dates": ["2024/04/01 (Mon) 10:00", "2024/04/21 (Sun) 14:30"],
            "haystack_session_ids": ["sharegpt_n_0", "answer_c_1"],
            "haystack_sessions": sessions,
            "answer_session_ids": ["answer_c_1"]}
    path = tmp_path / "lme.json"
    path.write_text(json.dumps([item]), encoding="utf-8")
    docs = load_longmemeval(path).scopes["q1"]
    recalled = [haystack_position(d.doc_id) for d in reversed(docs)]  # a memory's ranking
    assert None not in recalled and haystack_position("D1:3") is None
    corpus = haystack_corpus(item["haystack_session_ids"], item["haystack_sessions"], "turn")
    assert corpus.ids == ("sharegpt_n_0_1", "answer_c_1_1", "noans_c_1_3")
    rankings = corpus.rankings(recalled)
    assert [corpus.ids[r] for r in rankings] == ["noans_c_1_3", "answer_c_1_1", "sharegpt_n_0_1"]
    score = evaluate_retrieval(rankings, corpus.correct_docs, corpus.ids, k=2)
    # the gold row is ranked second, which the official discount weighs like the first
    assert score == RetrievalScore(recall_any=1.0, recall_all=1.0, ndcg_any=1.0)
