"""Messages a user sees speak of options and files, never of the model fields behind them: a missing
required option names the option and lists what the release offers, a bad setting names its flag,
a missing key names the environment variable, and a path that does not exist says it is missing.
"""

from __future__ import annotations

import pytest

from benchledger.cli.main import _as_the_user_spells_it, cli
from benchledger.errors import BadInput
from conftest import MINI
from ledger_cli import invoke


def last_line(result) -> str:
    return result.output.strip().splitlines()[-1]


def test_a_missing_domain_lists_the_domains_of_the_release():
    result = invoke("run", "groupmem", str(MINI))
    assert result.exit_code == 2
    assert last_line(result) == f"Error: --domain is required: one of Demo in {MINI}"


def test_a_setting_refused_by_the_settings_model_is_named_by_its_option():
    result = invoke("run", "groupmem", str(MINI), "--domain", "Demo", "--kinds", "no_such_kind")
    assert result.exit_code == 2
    assert "field '" not in result.output
    assert "no_such_kind" in result.output


def test_a_missing_key_names_the_variable_not_a_field():
    result = invoke("run", "groupmem", str(MINI), "--domain", "Demo", "--agent-model", "gpt-5",
                    "--base-url", "http://127.0.0.1:9/v1", env={"OPENAI_API_KEY": ""})
    assert result.exit_code == 2
    assert last_line(result) == ("Error: option --api-key-env: set the environment variable OPENAI_API_KEY to the "
                                 "endpoint's API key (or name another variable)")


@pytest.mark.parametrize("args", [("memora", "missing-release", "--split", "weekly"),
                                  ("locomo", "missing.json"), ("longmemeval", "missing.json"),
                                  ("groupmem", "missing-release", "--domain", "Demo")])
def test_a_path_that_does_not_exist_says_so(args):
    result = invoke("run", *args)
    assert result.exit_code == 2
    line = last_line(result)
    assert args[1] in line and ("no such" in line or "not found" in line), line
    assert "field '" not in line


def test_the_option_translation_keeps_file_fields_as_fields():
    from benchledger.cli.main import _as_the_user_spells_it
    from benchledger.errors import BadInput

    in_a_file = BadInput("must be an integer", file="q.jsonl", line=3, field="k")
    assert _as_the_user_spells_it(in_a_file, cli) == "q.jsonl:3: field 'k': must be an integer"
    a_setting = BadInput("must be at most 10", field="k")
    assert _as_the_user_spells_it(a_setting, cli) == "option --k: must be at most 10"
    unknown = BadInput("nope", field="no_such_option_anywhere")
    assert _as_the_user_spells_it(unknown, cli) == "field 'no_such_option_anywhere': nope"


def test_a_setting_spelled_differently_per_benchmark_is_named_as_it_was_typed():
    err = BadInput("unknown category 'x'", field="kinds")
    assert _as_the_user_spells_it(err, cli, ("run", "locomo", "--categories", "x")) == \
        "option --categories: unknown category 'x'"
    assert _as_the_user_spells_it(err, cli, ("run", "groupmem", "--kinds=x")) == "option --kinds: unknown category 'x'"
    result = invoke("run", "groupmem", str(MINI), "--domain", "Demo", "--kinds", "nope")
    assert result.exit_code == 2 and "option --kinds:" in last_line(result)


def test_a_field_named_after_its_flag_is_named_as_the_flag():
    assert _as_the_user_spells_it(BadInput("no events up to seq 10", field="until"), cli) == \
        "option --until: no events up to seq 10"
