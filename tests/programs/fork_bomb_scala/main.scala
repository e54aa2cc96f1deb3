// The JVM has no fork: children are started and never waited for, as fast as the JVM can, each a `sleep`
// that would outlive the phase if the sandbox let it. Every refusal is swallowed (IOException once the
// process limit is reached, an Error when no thread is left for the JVM), as the Python case catches its
// OSError.
object Main {
  def main(args: Array[String]): Unit = {
    while (true) {
      try new ProcessBuilder("sleep", "600").start()
      catch { case _: Throwable => () }
    }
  }
}
