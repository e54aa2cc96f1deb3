// A javac kept running for the in-sandbox runner (sandboxes/inner/warm.py): each request is one compile,
// in-process, through the same entry point as the javac command, with a fresh compiler context each time.
//
// Request: the arguments after `javac`, NUL-separated, ending in a newline. Reply: a line
// "EXIT <status> <stdout bytes> <stderr bytes>", then those bytes. `-J` options are the launcher's (the
// server was started with them) and are dropped here, as javac's launcher drops them.
import java.io.*;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import javax.tools.JavaCompiler;
import javax.tools.ToolProvider;

public class WarmJavac {
    public static void main(String[] ignored) throws IOException {
        JavaCompiler javac = ToolProvider.getSystemJavaCompiler();
        BufferedReader requests = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        OutputStream replies = new BufferedOutputStream(new FileOutputStream(FileDescriptor.out));
        for (String line; (line = requests.readLine()) != null; ) {
            List<String> args = new ArrayList<>();
            for (String arg : line.split("\0", -1)) {
                if (!arg.startsWith("-J") && !arg.isEmpty()) args.add(arg);
            }
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            ByteArrayOutputStream err = new ByteArrayOutputStream();
            int status = javac.run(null, out, err, args.toArray(new String[0]));
            reply(replies, status, out.toByteArray(), err.toByteArray());
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
