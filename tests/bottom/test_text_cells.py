"""`inert_cell`: a CSV cell of text from outside is shown as text by a spreadsheet and carries no control."""

from __future__ import annotations

import pytest

from benchledger.text import inert, inert_cell


@pytest.mark.parametrize("first", ["=", "+", "-", "@", "\t"])
def test_a_cell_beginning_with_a_formula_character_is_prefixed_with_a_single_quote(first):
    assert inert_cell(f"{first}1+1") == f"'{first}1+1"


def test_a_cell_beginning_with_cr_is_prefixed_and_its_cr_escaped():
    assert inert_cell("\r=1") == "'\\u000d=1"


@pytest.mark.parametrize("text", ["1+1", "a=b", "x-y", "mail@example", " =1", "'=1", "", "\n=1"])
def test_a_cell_whose_first_character_is_not_one_of_them_is_left_as_it_is(text):
    assert inert_cell(text) == inert(text) == text.replace("\x1b", "")


def test_controls_in_a_cell_are_escaped_as_on_the_terminal_newline_and_tab_kept():
    text = "a\x1b[2Jb\x07c\u009bd\u202ee\x00f\x7fg\nh\ti"
    assert inert_cell(text) == inert(text) == "a\\u001b[2Jb\\u0007c\\u009bd\\u202ee\\u0000f\\u007fg\nh\ti"
