"""What the question asks: its kind, its parts and its terms."""
