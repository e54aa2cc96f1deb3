from calc.tokens import tokenize


class Parser:
    """expr := term (('+'|'-') term)*; term := power (('*'|'/'|'%') power)*; power := unary ('**' power)?"""

    def __init__(self, text):
        self.tokens = tokenize(text)
        self.position = 0

    def peek(self):
        return self.tokens[self.position] if self.position < len(self.tokens) else ("end", None)

    def take(self, kind=None, value=None):
        token = self.peek()
        if (kind and token[0] != kind) or (value and token[1] != value):
            raise ValueError(f"expected {value or kind}, found {token[1] or 'the end'}")
        self.position += 1
        return token

    def statement(self):
        if self.peek()[0] == "name" and self.position + 1 < len(self.tokens) and self.tokens[1] == ("op", "="):
            name = self.take("name")[1]
            self.take("op", "=")
            tree = ("assign", name, self.expr())
        else:
            tree = self.expr()
        if self.peek()[0] != "end":
            raise ValueError(f"unexpected {self.peek()[1]}")
        return tree

    def expr(self):
        tree = self.term()
        while self.peek() in (("op", "+"), ("op", "-")):
            tree = (self.take()[1], tree, self.term())
        return tree

    def term(self):
        tree = self.power()
        while self.peek() in (("op", "*"), ("op", "/"), ("op", "%")):
            tree = (self.take()[1], tree, self.power())
        return tree

    def power(self):
        base = self.unary()
        if self.peek() == ("op", "**"):
            self.take()
            return ("**", base, self.power())
        return base

    def unary(self):
        if self.peek() == ("op", "-"):
            self.take()
            return ("neg", self.unary())
        kind, value = self.peek()
        if kind == "num":
            self.take()
            return ("num", value)
        if kind == "name":
            self.take()
            if self.peek() == ("op", "("):
                self.take()
                args = [self.expr()]
                while self.peek() == ("op", ","):
                    self.take()
                    args.append(self.expr())
                self.take("op", ")")
                return ("call", value, args)
            return ("var", value)
        self.take("op", "(")
        tree = self.expr()
        self.take("op", ")")
        return tree
