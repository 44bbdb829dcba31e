"""LongMemEval-V2: web-agent trajectories as memory, 451 questions in two domains and two haystack tiers,
boxed answers scored by six spec-named functions (two of them LLM judges), and the LAFS leaderboard score.

The official code is xiaowu0162/LongMemEval-V2 @ be15ea6e; every rule here is written from the
protocol as described (docs/longmemeval-v2.md), never copied, and proven by `conformance`.
"""
