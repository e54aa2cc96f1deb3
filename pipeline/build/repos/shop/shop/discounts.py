def discount(rule, lines, catalog, subtotal):
    """(amount off, reason when nothing is off) for one discount code."""
    if subtotal < rule.get("minimum", 0):
        return 0, f"needs a subtotal of {rule['minimum']}"
    if rule["kind"] == "percent":
        return round(subtotal * rule["value"] / 100, 2), ""
    if rule["kind"] == "amount":
        return min(rule["value"], subtotal), ""
    if rule["kind"] == "free":
        if rule["item"] not in lines:
            return 0, f"no {rule['item']} in the cart"
        return catalog.price(rule["item"]), ""
    return 0, "unknown kind"
