"""Research over the user's documents, laid out as its pipeline.

corpus -> reading -> retrieval -> synthesis -> providers, with the engine on top; ``passage`` is below them all.
"""
