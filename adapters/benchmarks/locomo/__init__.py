"""LoCoMo: very long two-person conversations, five QA categories, evidence labels per turn."""
