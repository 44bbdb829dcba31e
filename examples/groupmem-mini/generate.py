"""Regenerate the `Demo` domain of the groupmem-mini example release (an original, small release).

A team of eight launches "Smart Reminders" in a to-do app over seven weeks. `story.txt` holds the
hand-written storyline (every fact a question relies on); this script adds seeded daily standups
and a little noise around it, numbers messages in time order, and writes the release in the exact
GroupMemBench layout with the questions below. The committed files are the output; run
`python examples/groupmem-mini/generate.py` after editing the story, and the self-check at the end
refuses a question whose gold answer no message supports.
"""

from __future__ import annotations

import html
import random
from datetime import date, datetime, timedelta
from pathlib import Path

from benchledger.adapters.benchmarks.groupmem.schema import ABSTENTION_GOLD
from benchledger.adapters.benchmarks.groupmem.write import write_release

HERE = Path(__file__).resolve().parent
DOMAIN = "Demo"
YEAR = 2025
TEAM = {
    "User_1": "Product Manager", "User_2": "Engineering Manager", "User_3": "Backend Engineer",
    "User_4": "Backend Engineer", "User_5": "Mobile Engineer", "User_6": "UX Designer",
    "User_7": "QA Engineer", "User_8": "Support Lead",
}
PHASES = ((date(2025, 5, 5), "Kickoff"), (date(2025, 5, 12), "Design"), (date(2025, 5, 19), "Build"),
          (date(2025, 5, 28), "Beta"), (date(2025, 6, 16), "Launch"))
TOPIC_WORDS = (("snooze", "snooze"), ("quiet hours", "quiet hours"), ("batch", "batching"),
               ("window", "deploy and grace windows"), ("flag", "feature flag"),
               ("load test", "performance"), ("german", "localization"), ("beta", "beta rollout"),
               ("icon", "visual design"), ("security", "security review"), ("sync", "team sync"))
CHANNEL_TOPICS = {"general": "planning", "backend": "scheduler", "mobile": "notifications",
                  "design": "interaction design", "launch": "rollout", "standup": "daily status",
                  "random": "social"}
STANDUP_TASKS = {
    "User_1": ("roadmap review", "beta invite copy", "customer interviews", "launch checklist"),
    "User_2": ("hiring loop", "sprint planning", "risk register", "capacity planning"),
    "User_3": ("scheduler worker tests", "job retry logic", "metrics job cleanup", "code review"),
    "User_4": ("notifier refactor", "API error codes", "SLO dashboard", "code review"),
    "User_5": ("Android settings screen", "iOS snooze sheet", "crash triage", "store screenshots"),
    "User_6": ("snooze flows", "quiet hours copy", "empty states", "accessibility pass"),
    "User_7": ("test plan", "exploratory testing", "bug bash prep", "device matrix"),
    "User_8": ("support macros", "FAQ outline", "ticket tagging", "beta inbox"),
}
NOISE = ("Coffee machine on the third floor works again.", "Who is up for a walk at 3?",
         "Reminder that the office closes early on Friday.", "The good pens are back in the cupboard.",
         "Anyone watching the match tonight?", "Welcome back from vacation!")
QUESTIONS = {
    "knowledge_update": [
        ("What is the default snooze duration for Smart Reminders?", "10 minutes", "User_5"),
        ("How many users are in the Smart Reminders beta cohort?", "2,000 users", "User_8"),
        ("What does the backend use to queue scheduled reminders?", "a Postgres job table", "User_7"),
        ("How many reminders can a single task have?", "5 reminders", "User_5"),
        ("What is the name of the Smart Reminders feature flag?", "reminders_smart", "User_7"),
        ("What are the default quiet hours?", "9 PM to 8 AM", "User_8"),
        ("What colour is the reminder bell icon?", "teal", "User_5"),
    ],
    "temporal": [
        ("On what date (YYYY-MM-DD) was the design freeze?", "2025-05-16", "User_7"),
        ("On what date (YYYY-MM-DD) did the beta start for the opt-in cohort?", "2025-05-28", "User_8"),
        ("What was the app store submission deadline (YYYY-MM-DD)?", "2025-06-06", "User_5"),
        ("On what date (YYYY-MM-DD) was the load test scheduled?", "2025-06-03", "User_3"),
        ("On what date (YYYY-MM-DD) did Smart Reminders launch publicly?", "2025-06-17", "User_6"),
        ("What was the deadline (YYYY-MM-DD) for the security review?", "2025-05-30", "User_4"),
        ("On what date (YYYY-MM-DD) is the launch retro?", "2025-06-24", "User_3"),
    ],
    "user_implicit": [
        ("What did I commit to write for the reminders work?", "the migration for the reminders table", "User_3"),
        ("Which mockups did I say I would send before the freeze?", "the snooze sheet mockups", "User_6"),
        ("Which test suite did I say I would own?", "the time zone regression suite", "User_7"),
        ("What did I take on for Android?", "the notification channel setup", "User_5"),
        ("What did I offer to draft for the launch?", "the help center article on quiet hours", "User_8"),
        ("What did I say I would run during the beta?", "the beta feedback survey", "User_1"),
        ("What did I say I would add to the reminders API before beta?", "the rate limiter", "User_4"),
    ],
    "term_ambiguity": [
        ("In the backend sense of the window, how late may a reminder fire and still count as on time?", "5 minutes", "User_7"),
        ("On launch day, at what time did the window open for deploying?", "06:00 UTC", "User_2"),
        ("How often does the calendar sync import events?", "every 30 minutes", "User_6"),
        ("When is the weekly project sync held?", "Thursdays at 14:00", "User_5"),
        ("How many reminders must fire within 2 minutes before they are sent as one batch notification?", "more than 3 reminders", "User_8"),
        ("Who was in the first batch of the beta rollout?", "internal staff", "User_6"),
    ],
    "multi_hop": [
        ("Who reviews the PRs for the service that sends push notifications?", "User_4", "User_5"),
        ("Which Grafana board shows the metric chosen as the beta success metric?", "Reminders Health", "User_7"),
        ("What is the PagerDuty schedule of the team that owns the scheduler?", "platform-primary", "User_3"),
        ("What is the minimum version of the OS that needs the notification channel setup?", "Android 10", "User_8"),
        ("Which vendor translates the second beta language?", "Lingo Partners", "User_1"),
        ("Which room was the go/no-go meeting held in?", "the Birch room", "User_7"),
        ("What is the error budget of the service that stores reminder schedules?", "0.5% per month", "User_1"),
    ],
    "abstention": [
        ("What is the price of Smart Reminders in the premium tier?", None, "User_1"),
        ("Which iOS engineer was hired to join the reminders team?", None, "User_2"),
        ("What budget was approved for the launch marketing campaign?", None, "User_8"),
        ("Who approved an Apple Watch version of Smart Reminders?", None, "User_5"),
        ("What is the 90-day retention target for Smart Reminders?", None, "User_1"),
        ("Which customer asked for voice-activated reminders?", None, "User_6"),
    ],
}


def parse_story(path: Path) -> list[dict]:
    messages = []
    for line in path.read_text(encoding="utf-8").splitlines():
        if not line.strip() or line.startswith("#"):
            continue
        head, text = line.split(" | ", 1)
        day, clock, channel, user, *flags = head.split()
        messages.append({
            "when": datetime.fromisoformat(f"{YEAR}-{day}T{clock}:00"), "channel": channel,
            "author": f"User_{user}", "content": text, "decision": "d" in flags, "noise": "n" in flags,
            "key": next((f[1:] for f in flags if f.startswith("#")), None),
            "reply": next((f[1:] for f in flags if f.startswith("^")), None),
        })
    return messages


def filler(rng: random.Random) -> list[dict]:
    """A standup from three people each workday, and noise on some afternoons."""
    out, day = [], date(2025, 5, 5)
    while day <= date(2025, 6, 20):
        if day.weekday() < 5:
            for n, user in enumerate(sorted(rng.sample(sorted(TEAM), 3))):
                done, today = rng.sample(STANDUP_TASKS[user], 2)
                blocker = rng.choice(("none", "none", "none", "waiting on review"))
                out.append({"when": datetime(day.year, day.month, day.day, 9, 31 + 2 * n),
                            "channel": "standup", "author": user, "decision": False, "noise": False,
                            "content": f"Yesterday: {done}. Today: {today}. Blockers: {blocker}.",
                            "key": None, "reply": None})
            if rng.random() < 0.3:
                out.append({"when": datetime(day.year, day.month, day.day, 15, rng.randint(0, 59)),
                            "channel": "random", "author": rng.choice(sorted(TEAM)),
                            "content": rng.choice(NOISE), "decision": False, "noise": True,
                            "key": None, "reply": None})
        day += timedelta(days=1)
    return out


def topic_of(message: dict) -> str:
    lowered = html.unescape(message["content"]).lower()
    if message["channel"] in ("standup", "random"):
        return CHANNEL_TOPICS[message["channel"]]
    return next((topic for word, topic in TOPIC_WORDS if word in lowered),
                CHANNEL_TOPICS[message["channel"]])


def build() -> tuple[dict[str, list[dict]], dict[str, list[dict]]]:
    messages = sorted(parse_story(HERE / "story.txt") + filler(random.Random(7)),
                      key=lambda m: (m["when"], m["channel"]))
    node_of = {}
    for number, message in enumerate(messages, start=1):
        message["msg_node"] = f"Msg_{number}"
        if message["key"]:
            node_of[message["key"]] = message["msg_node"]
    channels: dict[str, list[dict]] = {}
    for m in messages:
        channels.setdefault(m["channel"], []).append({
            "msg_node": m["msg_node"], "content": m["content"], "author": m["author"],
            "role": TEAM[m["author"]], "timestamp": m["when"].isoformat(),
            "reply_to": node_of[m["reply"]] if m["reply"] else None,
            "phase_name": next(name for start, name in reversed(PHASES) if m["when"].date() >= start),
            "topic": topic_of(m), "is_noise": m["noise"], "is_decision_point": m["decision"],
        })
    questions = {
        kind: [{"id": f"{kind}_{i}", "question": text, "answer": gold or ABSTENTION_GOLD,
                "asking_user_id": user} for i, (text, gold, user) in enumerate(items, start=1)]
        for kind, items in QUESTIONS.items()
    }
    return channels, questions


def self_check(channels: dict[str, list[dict]]) -> None:
    texts = [(m["author"], html.unescape(m["content"])) for ms in channels.values() for m in ms]
    for kind, items in QUESTIONS.items():
        for text, gold, user in items:
            if gold is None:
                continue
            holders = [a for a, t in texts if gold in t]
            assert holders, f"{kind}: no message holds {gold!r}"
            if kind == "user_implicit":
                assert user in holders, f"{user} never said {gold!r}"


if __name__ == "__main__":
    channels, questions = build()
    self_check(channels)
    write_release(HERE, DOMAIN, channels, questions)  # prompts/ is hand-written, left as is
    print(f"{sum(len(v) for v in channels.values())} messages in {len(channels)} channels, "
          f"{sum(len(v) for v in questions.values())} questions")
