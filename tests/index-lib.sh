# Index checks shared by the DWARF tests (source after tests/lib.sh).
#
# index_compare BINARY ADDRFILE: build BINARY's index with `psym index`,
# then answer every address of ADDRFILE twice: from the DWARF (--no-index,
# on BINARY) and from the index alone (on a copy of BINARY without its
# debug sections: same build ID, no lines of its own). Both outputs
# (JSON, with columns and discriminators, and addr2line text) must be
# byte-identical. Extra psym options (--debug-dir ...) follow in $IDX_OPTS.
index_compare() {
	ic_bin=$1
	ic_addrs=$2
	ic_store=$T/index-store
	ic_n=$(wc -l <"$ic_addrs")
	# shellcheck disable=SC2086
	if ! "$PSYM" index --index-store "$ic_store" ${IDX_OPTS:-} "$ic_bin" >"$ic_bin.idx.out" \
		2>"$ic_bin.idx.err"; then
		fail "$ic_bin: psym index failed: $(head -3 "$ic_bin.idx.err")"
		return
	fi
	objcopy --strip-debug "$ic_bin" "$ic_bin.nodebug" 2>/dev/null ||
		cp "$ic_bin" "$ic_bin.nodebug"
	for ic_fmt in --json ""; do
		# shellcheck disable=SC2086
		"$PSYM" addr $ic_fmt --no-index ${IDX_OPTS:-} -e "$ic_bin" <"$ic_addrs" \
			>"$ic_bin.dw$ic_fmt" 2>/dev/null
		# Text: the index alone (no debug file can be found). JSON: with the
		# same options, since its StartAddress comes from the symbol table,
		# which a stripped binary has in its debug file; -v says the index
		# answered all the same.
		# shellcheck disable=SC2086
		"$PSYM" addr $ic_fmt ${ic_fmt:+-v ${IDX_OPTS:-}} --index-store "$ic_store" --offline \
			-e "$ic_bin.nodebug" <"$ic_addrs" >"$ic_bin.ix$ic_fmt" 2>"$ic_bin.ix.err"
		if [ -n "$ic_fmt" ] && ! grep -q "from the index" "$ic_bin.ix.err"; then
			fail "$ic_bin: the index did not answer: $(head -3 "$ic_bin.ix.err")"
		fi
		# The JSON names its module (-e): BINARY and BINARY.nodebug.
		if [ -n "$ic_fmt" ]; then
			for ic_f in "$ic_bin.dw$ic_fmt" "$ic_bin.ix$ic_fmt"; do
				sed 's/"ModuleName":"[^"]*"//' "$ic_f" >"$ic_f.t" && mv "$ic_f.t" "$ic_f"
			done
		fi
		if cmp -s "$ic_bin.dw$ic_fmt" "$ic_bin.ix$ic_fmt"; then
			pass "$ic_bin: index answers ${ic_fmt:-text} = DWARF answers ($ic_n addresses, index $(cut -d' ' -f2 "$ic_bin.idx.out") bytes)"
		else
			fail "$ic_bin: index answers ${ic_fmt:-text} differ from the DWARF's:"
			diff "$ic_bin.dw$ic_fmt" "$ic_bin.ix$ic_fmt" >"$ic_bin.diff"
			head -1 "$ic_bin.diff"
			grep -m1 '^<' "$ic_bin.diff" | cut -c1-600
			grep -m1 '^>' "$ic_bin.diff" | cut -c1-600
		fi
	done
}

# start_dav_nginx PORT [SERVER_BLOCKS]: a real nginx on 127.0.0.1:PORT whose
# /idx/ takes WebDAV PUTs of up to 10 MB and /small/ of up to 1 KB, under
# $T/www, plus any further server blocks given; its pid in $T/nginx.pid
# (stop it with kill "$(cat "$T/nginx.pid")"). Skips when nginx cannot run.
start_dav_nginx() {
	sdn_nginx=$(command -v nginx || echo /usr/sbin/nginx)
	[ -x "$sdn_nginx" ] || skip "nginx is not installed (nginx-light)"
	mkdir -p "$T/www/idx" "$T/www/small" "$T/logs"
	# As root, nginx's workers would run as nobody: keep them the test's user.
	sdn_user=
	[ "$(id -u)" = 0 ] && sdn_user="user root root;"
	cat >"$T/nginx.conf" <<NGINX
$sdn_user
worker_processes 1;
daemon on;
pid $T/nginx.pid;
error_log $T/logs/error.log;
events { worker_connections 64; }
http {
	access_log $T/logs/access.log;
	client_body_temp_path $T/body;
	proxy_temp_path $T/proxy;
	fastcgi_temp_path $T/fastcgi;
	uwsgi_temp_path $T/uwsgi;
	scgi_temp_path $T/scgi;
	server {
		listen 127.0.0.1:$1;
		root $T/www;
		location /idx/ { dav_methods PUT; create_full_put_path on; client_max_body_size 10m; }
		location /small/ { dav_methods PUT; create_full_put_path on; client_max_body_size 1k; }
	}
${2:-}
}
NGINX
	"$sdn_nginx" -p "$T" -c "$T/nginx.conf" -e "$T/logs/error.log" 2>"$T/nginx.err" ||
		skip "nginx does not start here: $(head -2 "$T/nginx.err")"
	for _ in $(seq 50); do
		python3 -c "import socket; socket.create_connection(('127.0.0.1', $1), 1)" 2>/dev/null &&
			break
		sleep 0.1
	done
}
