import sys

from shop.catalog import Catalog
from shop.cart import Cart


def main(path):
    catalog = Catalog.load()
    cart = Cart(catalog)
    with open(path) as handle:
        for line in handle:
            words = line.split()
            if not words:
                continue
            if words[0] == "add":
                print(cart.add(words[1], int(words[2]) if len(words) > 2 else 1))
            elif words[0] == "remove":
                print(cart.remove(words[1]))
            elif words[0] == "code":
                print(cart.apply_code(words[1]))
    for line in cart.receipt():
        print(line)


if __name__ == "__main__":
    main(sys.argv[1])
