import java.io.IOException
import java.net.{InetSocketAddress, Socket}

object Main {
  def main(args: Array[String]): Unit = {
    for ((host, port) <- List(("1.1.1.1", 53), ("127.0.0.1", 22))) {
      try {
        val socket = new Socket()
        socket.connect(new InetSocketAddress(host, port), 1000)
        socket.close()
        println(s"CONNECTED $host")
      } catch {
        case error: IOException => println(s"no network $host ${error.getClass.getSimpleName}")
      }
    }
  }
}
