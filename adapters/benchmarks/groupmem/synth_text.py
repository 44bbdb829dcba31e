"""Word lists and sentence templates for the synthetic GroupMemBench generator.

Kept apart from the generator so the generator reads as the plan it is (which message carries
which fact) and this file as the vocabulary. Every fact template puts the gold answer verbatim
into the message, so extractive offline baselines can find it.
"""

from __future__ import annotations

__all__ = [
    "ROLES", "CHANNELS", "NOISE_CHANNEL", "PHASES", "TOPICS", "COMPONENT_WORDS", "ABSENT_WORDS",
    "SETTINGS", "ARTIFACTS", "DELIVERABLES", "SQUADS", "ROOMS", "TERM_SENSES", "CHATTER", "NOISE",
    "AGENT_PROMPT", "JUDGE_PROMPT",
]

ROLES = (
    "Product Manager", "Engineering Manager", "Backend Engineer", "Backend Engineer",
    "Frontend Engineer", "Frontend Engineer", "SRE", "QA Engineer", "Data Analyst",
    "UX Designer", "Security Engineer", "Support Lead",
)
CHANNELS = ("general", "backend", "frontend", "ops", "design")
NOISE_CHANNEL = "random"
PHASES = ("Discovery", "Design Review", "Implementation", "Hardening", "Launch")
TOPICS = {
    "general": ("planning", "status", "staffing"),
    "backend": ("api contract", "storage", "performance"),
    "frontend": ("ui states", "accessibility", "client caching"),
    "ops": ("monitoring", "rollout", "incident drills"),
    "design": ("flows", "copy", "visual polish"),
    "random": ("social",),
}
COMPONENT_WORDS = (
    "Atlas", "Beacon", "Cobalt", "Delta", "Ember", "Falcon", "Garnet", "Harbor", "Iris", "Juniper",
    "Kestrel", "Lumen", "Maple", "Nova", "Onyx", "Pioneer", "Quartz", "Raven", "Sierra", "Tundra",
)
# Never used in messages: abstention questions ask about these, so no message can answer them.
ABSENT_WORDS = ("Zephyrine", "Quillon", "Vantablue", "Xerophyte", "Yarrowind", "Wolfsbane")
SETTINGS = (
    ("retry limit", "{n} retries", (3, 4, 5, 6, 8)),
    ("batch size", "{n} records", (100, 250, 500, 1000)),
    ("request timeout", "{n} seconds", (15, 20, 30, 45, 60)),
    ("rollout percentage", "{n} percent", (5, 10, 25, 50)),
    ("cache TTL", "{n} minutes", (5, 10, 15, 30)),
)
ARTIFACTS = ("load test report", "API spec sign-off", "runbook draft", "migration dry run",
             "accessibility audit", "security review")
DELIVERABLES = ("the dashboard mockups", "the retry policy doc", "the alert thresholds",
                "the schema migration script", "the release notes", "the on-call handbook")
SQUADS = ("Orchid", "Granite", "Comet", "Willow", "Tangerine", "Basalt", "Heron", "Saffron")
ROOMS = ("Blue Room", "Annex B", "Studio 4", "Loft 2", "Corner Office", "Lab 3")
TERM_SENSES = (
    ("cutover", "database sense", "switching the primary database",
     "UI sense", "swapping the UI theme"),
    ("freeze", "code sense", "stopping merges to main",
     "data sense", "locking the reporting snapshot"),
    ("handoff", "on-call sense", "passing the pager to the next shift",
     "design sense", "delivering final specs to engineering"),
)
CHATTER = (
    "Picked up the {comp} ticket, will post an update after standup.",
    "PR for {comp} is up, could someone from {channel} take a look?",
    "The {comp} dashboards look healthy this morning.",
    "I added notes on {comp} to the {topic} doc.",
    "Still blocked on {comp} until the staging data refresh lands.",
    "Pairing with {user} on {comp} this afternoon.",
    "Reminder: demo of {comp} on Thursday, keep it to five minutes.",
    "Ran the {comp} tests twice, both green.",
    "Does anyone know who owns the flaky {comp} check?",
    "Moving the {comp} discussion to a thread so the channel stays readable.",
)
NOISE = (
    "Lunch at the taco place today?", "Coffee machine on 3 is fixed.", "Happy Friday, everyone!",
    "Who left an umbrella in the meeting room?", "Great game last night.",
    "Reminder to submit your hours.", "Anyone up for a walk at 3?", "Welcome back, hope the trip was good.",
)
AGENT_PROMPT = (
    "You answer questions about a team's chat history using only the passages you are given.\n"
    "Think it through in a short paragraph, then give your answer on its own line as:\n"
    "Final: <answer>\n"
    "If the passages do not contain the answer, say that in the Final line.\n"
)
JUDGE_PROMPT = (
    "You compare an agent's answer with the gold answer to a question about a team chat.\n"
    "Count an answer as correct when it means the same as the gold answer, even if worded "
    "differently.\n"
    "Give one short paragraph of reasoning, then your verdict on its own line as:\n"
    "Final: Correct\n"
    "or\n"
    "Final: Incorrect\n"
)
