let count: number = 0;
while (true) {
  count++;
}
