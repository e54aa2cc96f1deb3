// A scalac kept running for the in-sandbox runner (sandboxes/inner/warm.py): each request is one compile,
// through the scalac command's own entry point (scala.tools.nsc.Main.process, a fresh Global each time), with
// Scala's console and Java's standard streams pointed at buffers for the compile.
//
// Request: the arguments after `scalac`, NUL-separated, ending in a newline. Reply: a line
// "EXIT <status> <stdout bytes> <stderr bytes>", then those bytes. The server must be started as the
// scalac script starts the compiler (its class path, -Dscala.home, -Dscala.usejavacp=true): the
// compile's class path is derived from the JVM's.
import java.io.*;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

public class WarmScalac {
    public static void main(String[] ignored) throws IOException {
        BufferedReader requests = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        OutputStream replies = new BufferedOutputStream(new FileOutputStream(FileDescriptor.out));
        for (String line; (line = requests.readLine()) != null; ) {
            List<String> args = new ArrayList<>();
            for (String arg : line.split("\0", -1)) {
                if (!arg.isEmpty()) args.add(arg);
            }
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            ByteArrayOutputStream err = new ByteArrayOutputStream();
            int status = compile(args.toArray(new String[0]), new PrintStream(out, true), new PrintStream(err, true));
            reply(replies, status, out.toByteArray(), err.toByteArray());
        }
    }

    @SuppressWarnings("deprecation")
    static int compile(String[] args, PrintStream out, PrintStream err) {
        PrintStream javaOut = System.out, javaErr = System.err;
        System.setOut(out);
        System.setErr(err);
        scala.Console$.MODULE$.setOut(out);
        scala.Console$.MODULE$.setErr(err);
        try {
            scala.tools.nsc.Main.process(args);
            return scala.tools.nsc.Main.reporter().hasErrors() ? 1 : 0;  // as Driver.main exits
        } catch (Throwable crash) {
            crash.printStackTrace(err);
            return 1;
        } finally {
            System.setOut(javaOut);
            System.setErr(javaErr);
        }
    }

    static void reply(OutputStream replies, int status, byte[] out, byte[] err) throws IOException {
        String head = "EXIT " + status + " " + out.length + " " + err.length + "\n";
        replies.write(head.getBytes(StandardCharsets.US_ASCII));
        replies.write(out);
        replies.write(err);
        replies.flush();
    }
}
