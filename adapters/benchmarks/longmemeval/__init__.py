"""LongMemEval: one haystack of chat sessions per question, six question types plus abstention."""
