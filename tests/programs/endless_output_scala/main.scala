object Main {
  def main(args: Array[String]): Unit = {
    val line = "spam " * 100
    while (true) println(line)
  }
}
