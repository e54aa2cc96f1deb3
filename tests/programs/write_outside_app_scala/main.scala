import java.io.IOException
import java.nio.file.{Files, Paths}

object Main {
  def main(args: Array[String]): Unit = {
    val paths = List(
      "/usr/surge-escape",
      "/etc/surge-escape",
      "/surge-escape",
      "/opt/surge-runner/escape",
      "/root/surge-escape"
    )
    for (path <- paths) {
      try {
        Files.write(Paths.get(path), "x".getBytes)
        println(s"WROTE $path")
      } catch {
        case error: IOException => println(s"refused $path ${error.getClass.getSimpleName}")
      }
    }
  }
}
