"""From evidence to a report: claims, relevance, verification against the passages, and the cited report."""
