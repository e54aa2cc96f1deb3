const line: string = "spam ".repeat(100);
while (true) {
  console.log(line);
}
