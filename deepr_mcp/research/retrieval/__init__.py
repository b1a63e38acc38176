"""Evidence for a sub-question: a wide lexical pool, re-scored by signals, re-ranked, then diversified."""
