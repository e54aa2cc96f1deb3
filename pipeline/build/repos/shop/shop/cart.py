from shop.discounts import discount


class Cart:
    def __init__(self, catalog):
        self.catalog = catalog
        self.lines = {}
        self.code = None

    def add(self, item, count):
        if self.catalog.price(item) is None:
            return f"no such item: {item}"
        self.lines[item] = self.lines.get(item, 0) + count
        return f"{item} x{self.lines[item]}"

    def remove(self, item):
        if item not in self.lines:
            return f"{item} is not in the cart"
        del self.lines[item]
        return f"removed {item}"

    def apply_code(self, code):
        if code not in self.catalog.codes:
            return f"unknown code {code}"
        self.code = code
        return f"code {code} noted"

    def subtotal(self):
        return sum(self.catalog.price(item) * count for item, count in self.lines.items())

    def receipt(self):
        lines = [f"{item:<8}{count:>3} {self.catalog.price(item) * count:>8.2f}" for item, count in sorted(self.lines.items())]
        subtotal = self.subtotal()
        lines.append(f"subtotal    {subtotal:>8.2f}")
        if self.code:
            off, why = discount(self.catalog.codes[self.code], self.lines, self.catalog, subtotal)
            lines.append(f"{self.code:<12}{-off:>8.2f}" if off else f"{self.code}: {why}")
            subtotal -= off
        lines.append(f"total       {subtotal:>8.2f}")
        return lines
