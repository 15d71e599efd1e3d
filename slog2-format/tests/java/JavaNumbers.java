// The oracle of tests/java_numbers.rs: prints what this JVM's Double.toString
// and Float.toString write for bit patterns read from a file, one per line:
// "d <16 hex digits>" or "f <8 hex digits>". Our own test program.
import java.io.BufferedReader;
import java.io.BufferedWriter;
import java.io.FileReader;
import java.io.OutputStreamWriter;

public class JavaNumbers {
    public static void main(String[] args) throws Exception {
        BufferedWriter out = new BufferedWriter(new OutputStreamWriter(System.out, "UTF-8"), 1 << 16);
        try (BufferedReader in = new BufferedReader(new FileReader(args[0]), 1 << 16)) {
            String line;
            while ((line = in.readLine()) != null) {
                if (line.isEmpty()) continue;
                String hex = line.substring(2);
                if (line.charAt(0) == 'd') {
                    out.write(Double.toString(Double.longBitsToDouble(Long.parseUnsignedLong(hex, 16))));
                } else {
                    out.write(Float.toString(Float.intBitsToFloat(Integer.parseUnsignedInt(hex, 16))));
                }
                out.write('\n');
            }
        }
        out.flush();
    }
}
