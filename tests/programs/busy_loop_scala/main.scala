object Main {
  @volatile var count = 0L

  def main(args: Array[String]): Unit = {
    while (true) count += 1
  }
}
