import json
from pathlib import Path

DATA = Path(__file__).parent / "data"


class Catalog:
    def __init__(self, prices, codes):
        self.prices = prices
        self.codes = codes

    @classmethod
    def load(cls):
        prices = json.loads((DATA / "prices.json").read_text())
        codes = json.loads((DATA / "codes.json").read_text())
        return cls(prices, codes)

    def price(self, item):
        return self.prices.get(item)
