"""Invented kiln-workshop words shared by the engine tests that need many distinct, plausible passages."""

WARES = [
    "tall vases",
    "wide bowls",
    "flat tiles",
    "small cups",
    "heavy planters",
    "glazed mugs",
    "thin plates",
    "lidded jars",
    "bisque beads",
    "stoneware teapots",
    "porcelain spoons",
    "clay whistles",
    "test cones",
    "raku bowls",
    "saggars",
    "garden pavers",
    "tea bowls",
    "sculpture heads",
    "pie dishes",
    "bud vases",
]
