"""The hand-written mutations (`tests/mutations.toml`, run by `tests/mutate.py` before a release) stay
applicable: each one's text occurs exactly once in its module and its tests exist, so a refactor that
moves the code tells its author to rewrite the mutation instead of leaving it to rot until a release."""

from __future__ import annotations

import mutate


def test_every_mutation_applies_to_the_code_as_it_is():
    mutations = mutate.catalogue()
    assert len(mutations) >= 6 and len({m.name for m in mutations}) == len(mutations)
    assert [line for m in mutations for line in mutate.problems(m)] == []


def test_a_mutation_whose_code_moved_is_named(tmp_path):
    (tmp_path / "tests").mkdir()
    (tmp_path / "tests" / "test_x.py").write_text("def test_it():\n    pass\n")
    (tmp_path / "m.py").write_text("a = 1\na = 1\n")
    twice = mutate.Mutation("twice", "m.py", "a = 1", "a = 2", ("tests/test_x.py::test_it",), "p")
    gone = mutate.Mutation("gone", "m.py", "b = 1", "b = 2", ("tests/test_x.py::test_gone",), "p")
    moved = mutate.Mutation("moved", "n.py", "a = 1", "a = 2", (), "p")
    assert mutate.problems(twice, tmp_path) == [
        "twice: its `find` text occurs 2 times in m.py, not once: update tests/mutations.toml to the code's new form"]
    assert mutate.problems(gone, tmp_path)[1:] == ["gone: no test tests/test_x.py::test_gone"]
    assert mutate.problems(moved, tmp_path) == ["moved: n.py does not exist"]
    (tmp_path / "m.py").write_text("a = 1\n")
    assert mutate.problems(twice, tmp_path) == []
