"""Replicas kept in step through a shared, ordered change log: the outbox, the follower, the log's shape."""
