"""What the question asks (its kind, parts and terms) and the words documentation uses for caveats and notes."""
