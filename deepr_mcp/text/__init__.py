"""Text processing shared by the gateway and research: tokenizing, stop words, stemming."""
