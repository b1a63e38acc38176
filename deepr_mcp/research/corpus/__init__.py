"""The corpus: documents read into passages (ingest), stored and searched (schema, storage, changes, vectors)."""
