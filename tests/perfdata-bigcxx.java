// The workload tests/perfdata-bigcxx.sh records: run with -Xcomp, every
// method it calls is compiled first (C1 and C2, HotSpot's heaviest template
// C++), and it allocates enough for the serial collector to work too.
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.stream.Collectors;
import java.util.stream.IntStream;

class Churn {
	static long round(int k) {
		HashMap<String, Long> m = new HashMap<>();
		for (int i = 0; i < 20000; i++)
			m.merge(Integer.toString(i * 7919 % 10007), (long)i, Long::sum);
		ArrayList<Integer> l = new ArrayList<>();
		for (int i = 0; i < 50000; i++)
			l.add((i * 40503 + k) % 65536);
		Collections.sort(l);
		List<String> s = IntStream.range(0, 5000)
					 .mapToObj(i -> "x" + (i * 31 % 977))
					 .filter(x -> x.length() > 2)
					 .sorted()
					 .collect(Collectors.toList());
		return m.size() + l.get(k % l.size()) + s.size();
	}

	public static void main(String[] a) {
		int n = a.length > 0 ? Integer.parseInt(a[0]) : 5;
		long t = 0;
		for (int k = 0; k < n; k++)
			t += round(k);
		System.out.println(t);
	}
}
