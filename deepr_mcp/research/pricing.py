"""Dollars per million tokens per model, so every step's usage becomes a cost.

Prices are list prices as commonly published (USD per 1M input / output tokens); a model is
matched exactly, then by the longest known prefix. Unknown models cost 0 and are flagged, and
``price.input_per_mtok`` / ``price.output_per_mtok`` override the configured model's price.
"""

from __future__ import annotations

from dataclasses import dataclass

DEFAULT_PRICES: dict[str, tuple[float, float]] = {
    "gpt-4o-mini": (0.15, 0.60),
    "gpt-4o": (2.50, 10.00),
    "gpt-4.1-nano": (0.10, 0.40),
    "gpt-4.1-mini": (0.40, 1.60),
    "gpt-4.1": (2.00, 8.00),
    "o4-mini": (1.10, 4.40),
    "o3": (2.00, 8.00),
    "claude-3-5-haiku": (0.80, 4.00),
    "claude-haiku-4": (1.00, 5.00),
    "claude-sonnet-4": (3.00, 15.00),
    "claude-opus-4": (15.00, 75.00),
    "grok-3-mini": (0.30, 0.50),
    "grok-3": (3.00, 15.00),
    "extractive": (0.0, 0.0),
    "llama": (0.0, 0.0),
    "qwen": (0.0, 0.0),
    "mistral": (0.0, 0.0),
}


@dataclass(frozen=True, slots=True)
class Price:
    input_per_mtok: float
    output_per_mtok: float
    known: bool


class Pricing:
    def __init__(
        self,
        table: dict[str, tuple[float, float]] | None = None,
        *,
        override_model: str | None = None,
        override_input_per_mtok: float | None = None,
        override_output_per_mtok: float | None = None,
    ) -> None:
        self.table = dict(DEFAULT_PRICES if table is None else table)
        self.override_model = override_model
        self.override_input = override_input_per_mtok
        self.override_output = override_output_per_mtok

    def price(self, model: str) -> Price:
        name = model.lower().split("/")[-1]  # "openai/gpt-4o" on OpenRouter prices as "gpt-4o"
        base = self.table.get(name)
        if base is None:
            prefixes = [k for k in self.table if name.startswith(k)]
            base = self.table[max(prefixes, key=len)] if prefixes else None
        known = base is not None
        input_price, output_price = base or (0.0, 0.0)
        if self.override_model is not None and model == self.override_model:
            if self.override_input is not None:
                input_price, known = self.override_input, True
            if self.override_output is not None:
                output_price, known = self.override_output, True
        return Price(input_price, output_price, known)

    def cost(self, model: str, input_tokens: int, output_tokens: int) -> float:
        price = self.price(model)
        return round((input_tokens * price.input_per_mtok + output_tokens * price.output_per_mtok) / 1_000_000, 8)
