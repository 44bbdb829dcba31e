"""A deterministic synthetic LongMemEval-V2 release in the official layout, for scale tests and offline demos.

It writes `questions.jsonl`, `trajectories.jsonl`, `haystacks/lme_v2_small.json`,
`haystacks/lme_v2_medium.json` and one placeholder PNG per state under `screenshots/`, which the
loader reads with every official rule. Per domain (web: a Magento admin; enterprise: a ServiceNow
instance) `trajectories` trajectories of `states` states each; every state has a URL, a thought, an
action and an accessibility tree of `tree_lines` lines (WebArena-like `[id] role 'name'` for web,
BrowserGym-like `[a12]` bids for enterprise), so a state's size is set by `tree_lines`.

Questions (`questions` per domain, cycling over the seven types and all six scoring functions) are
about one trajectory each: which buttons a page shows (phrase set), which links were clicked in
order (ordered phrases), which option letter names the page (multiple choice), a gotcha and a
flawed premise (the two LLM checkers). The medium haystack gives every question the whole domain
pool in an order of its own, so the harness (and benchledger) builds memory per question; the
small haystack shares one ordered list of at most 100 trajectories per domain. The same seed
writes the same bytes; all URLs use the reserved `.invalid` domain and all ids start with `syn_`.
"""

from __future__ import annotations

import json
import random
import struct
import zlib
from pathlib import Path

from pydantic import BaseModel, ConfigDict

__all__ = ["SynthV2Summary", "synthesize_longmemeval_v2", "placeholder_png"]

_PAGES = {
    "web": ("Dashboard", "Orders", "Customers", "Catalog", "Invoices", "Shipments", "Reports", "Reviews"),
    "enterprise": ("Incidents", "Catalog Tasks", "Knowledge", "Change Requests", "Approvals", "Problems",
                   "Service Catalog", "Assets"),
}
_BUTTONS = ("Back", "Save", "Hold", "Cancel", "Send Email", "Reorder", "Print", "Approve", "Reject", "Submit",
            "Edit", "Delete", "Export", "Filters", "Create New", "Assign", "Resolve", "Close", "Update")
_HOSTS = {"web": "http://shop.synth.invalid:7780/admin", "enterprise": "https://instance.service-now.invalid"}
_ENVIRONMENT = {"web": "shopping_admin", "enterprise": "servicenow"}
_TYPES = ("static-environment", "dynamic-environment", "procedure", "errors-gotchas", "static-environment-abs",
          "dynamic-environment-abs", "procedure-abs")
_PHRASES = "|lower=true|normalize_hyphen=true|strip_punct=true|separators=,;|require_non_empty=true"


class SynthV2Summary(BaseModel):
    model_config = ConfigDict(frozen=True)

    out_dir: str
    trajectories: dict[str, int]
    states: int
    questions: dict[str, int]
    bytes_trajectories: int


def placeholder_png(width: int = 4, height: int = 3) -> bytes:
    """A valid grey RGB PNG (a stand-in screenshot)."""
    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))
    rows = b"".join(b"\x00" + b"\x80\x80\x80" * width for _ in range(height))
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0))
            + chunk(b"IDAT", zlib.compress(rows)) + chunk(b"IEND", b""))


def _tree(rng: random.Random, domain: str, page: str, buttons: list[str], lines: int) -> str:
    bid = (lambda n: f"[a{n}]") if domain == "enterprise" else (lambda n: f"[{n}]")
    rows = [f"{bid(1)} RootWebArea '{page} | Synth' focused: True"]
    rows += [f"\t{bid(10 + i)} button '{name}'" for i, name in enumerate(buttons)]
    n = 40
    while len(rows) < lines:
        n += rng.randint(1, 9)
        role = rng.choice(("link", "gridcell", "StaticText", "columnheader", "combobox", "heading"))
        rows.append(f"\t{bid(n)} {role} '{rng.choice(_PAGES[domain])} {rng.randint(100, 999)}'")
    return "\n".join(rows[:max(lines, 1 + len(buttons))])


def _trajectory(rng: random.Random, domain: str, index: int, states: int, tree_lines: int) -> dict:
    tid = f"syn_{domain}_{index:03d}_{rng.getrandbits(24):06x}"
    pages = rng.sample(_PAGES[domain], k=min(states, len(_PAGES[domain])))
    record_no = rng.randint(100, 999)
    goal = f"Open {pages[-1].lower()} record #{record_no} and review it."
    rows = []
    for step in range(states):
        page = pages[step % len(pages)]
        buttons = rng.sample(_BUTTONS, k=4)
        next_page = pages[(step + 1) % len(pages)]
        last = step == states - 1
        action = (None if rng.random() < 0.5 else "stop [N/A]") if last else \
            (f"click('a{20 + step}')" if domain == "enterprise" else f"click [{20 + step}]")
        rows.append({
            "state_index": step, "step": step, "url": f"{_HOSTS[domain]}/{page.lower().replace(' ', '_')}/{record_no}",
            "action": action,
            "thought": f"This page is '{page}'. It shows {', '.join(buttons)}. Next I open '{next_page}'.",
            "accessibility_tree": _tree(rng, domain, page, buttons, tree_lines),
            "screenshot": f"screenshots/{tid}/{step}.png"})
    return {"id": tid, "domain": domain, "environment": _ENVIRONMENT[domain], "goal": goal,
            "outcome": rng.choice(("success", "failure", None)), "start_url": rows[0]["url"], "states": rows}


def _question(rng: random.Random, domain: str, number: int, trajectory: dict) -> dict:
    qtype = _TYPES[number % len(_TYPES)]
    state = trajectory["states"][rng.randrange(len(trajectory["states"]))]
    page = state["thought"].split("'")[1]
    shown = state["thought"].split("It shows ")[1].split(". Next")[0]
    clicks = [s["thought"].split("Next I open '")[1].rstrip("'.") for s in trajectory["states"][:3]]
    qid = f"{rng.getrandbits(32):08x}"
    base = {"id": qid, "domain": domain, "environment": trajectory["environment"], "question_type": qtype,
            "image": None}
    if qtype == "static-environment" and number % 2:
        letter = "ABCD"[rng.randrange(4)]
        options = {letter: page}
        options.update({c: rng.choice(_PAGES[domain]) for c in "ABCD" if c != letter})
        listed = "; ".join(f"{c}. {options[c]}" for c in "ABCD")
        return {**base, "question": f"Which page shows the buttons {shown}? {listed}", "answer": letter,
                "eval_function": "mc_choice_match|strip_chars=.|require_non_empty=true"}
    if qtype == "static-environment":
        return {**base, "question": f"Which buttons does the '{page}' page of record {trajectory['goal'][-20:]} show?",
                "answer": shown, "eval_function": "norm_phrase_set_match" + _PHRASES}
    if qtype == "dynamic-environment":
        letters = sorted(rng.sample("ABCD", 2))
        return {**base, "question": f"Which of A-D did the agent open after '{page}'? A. {clicks[0]} B. {clicks[1]} "
                                    f"C. {clicks[2]} D. none", "answer": ", ".join(letters),
                "eval_function": "mc_choice_set_match|require_non_empty=true"}
    if qtype == "procedure":
        return {**base, "question": f"In order, which pages did the agent open for: {trajectory['goal']}",
                "answer": "; ".join(clicks), "eval_function": "norm_phrase_set_match_ordered" + _PHRASES}
    if qtype == "errors-gotchas":
        return {**base, "question": f"What should you watch out for on the '{page}' page?",
                "answer": f"'{shown.split(', ')[0]}' leaves the page without saving.",
                "eval_function": "llm_gotchas_checker|require_non_empty=true"}
    return {**base, "question": f"Which button on the '{page}' page prints the packing slip?",
            "answer": f"The premise is wrong: the '{page}' page has no packing-slip button; it shows {shown}.",
            "eval_function": "llm_abstention_checker|require_non_empty=true"}


def synthesize_longmemeval_v2(out_dir: Path, *, trajectories: int, questions: int = 14, states: int = 10,
                              tree_lines: int = 40, seed: int = 0) -> SynthV2Summary:
    """Write a synthetic release under `out_dir` (`trajectories` per domain, each of `states` states)."""
    out = Path(out_dir)
    (out / "haystacks").mkdir(parents=True, exist_ok=True)
    png = placeholder_png()
    all_questions: list[dict] = []
    small: dict[str, list[str]] = {}
    medium: dict[str, list[str]] = {}
    counts, n_states = {}, 0
    with (out / "trajectories.jsonl").open("w", encoding="utf-8") as handle:
        for domain in ("web", "enterprise"):
            rng = random.Random(f"{seed}:{domain}")
            pool = [_trajectory(rng, domain, i, states, tree_lines) for i in range(trajectories)]
            for record in pool:
                handle.write(json.dumps(record, ensure_ascii=False) + "\n")
                folder = out / "screenshots" / record["id"]
                folder.mkdir(parents=True, exist_ok=True)
                for state in record["states"]:
                    (out / state["screenshot"]).write_bytes(png)
                n_states += len(record["states"])
            ids = [t["id"] for t in pool]
            shared = rng.sample(ids, k=min(100, len(ids)))
            asked = [_question(rng, domain, n, pool[rng.randrange(len(pool))]) for n in range(questions)]
            for question in asked:
                small[question["id"]] = shared
                medium[question["id"]] = rng.sample(ids, k=len(ids))
            all_questions += asked
            counts[domain] = len(pool)
    with (out / "questions.jsonl").open("w", encoding="utf-8") as handle:
        handle.writelines(json.dumps(q, ensure_ascii=False) + "\n" for q in all_questions)
    (out / "haystacks" / "lme_v2_small.json").write_text(json.dumps(small), encoding="utf-8")
    (out / "haystacks" / "lme_v2_medium.json").write_text(json.dumps(medium), encoding="utf-8")
    return SynthV2Summary(out_dir=str(out), trajectories=counts, states=n_states,
                          questions={d: sum(q["domain"] == d for q in all_questions) for d in counts},
                          bytes_trajectories=(out / "trajectories.jsonl").stat().st_size)
