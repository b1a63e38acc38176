// The new-budget field's rule, kept apart so it reads (and is tested) on its own.
const MAX_BUDGET = 10000;

/** A dollar amount typed by a person: digits with an optional decimal part, > 0, <= 10,000. */
export function parseBudget(raw, spent = 0) {
  const text = String(raw ?? "").trim().replace(/^\$/, "");
  if (!text) return { error: "Enter the new budget in dollars, e.g. 2.50." };
  if (!/^\d+(\.\d+)?$/.test(text)) {
    return { error: `"${String(raw).trim()}" is not a dollar amount: use a number greater than 0, e.g. 2.50.` };
  }
  const value = Number(text);
  if (!(value > 0)) return { error: "The new budget must be greater than 0." };
  if (value > MAX_BUDGET) return { error: `The new budget can be at most $${MAX_BUDGET}.` };
  if (value <= spent) return { error: `The new budget must be above what is already spent ($${spent}).` };
  return { value };
}
