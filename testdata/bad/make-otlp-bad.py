#!/usr/bin/env python3
"""Hostile OTLP profiles (issue 51) for testdata/bad/ and the otlp fuzz seeds.

Encodes protobuf by hand (no psym code, no generated classes): a small valid
ProfilesData of opentelemetry-proto 1.10.0, then one defect per file.
Run from testdata/bad/: python3 make-otlp-bad.py [SEED_DIR]
"""
import gzip
import sys


def varint(n):
    out = b""
    n &= (1 << 64) - 1
    while True:
        b = n & 0x7F
        n >>= 7
        if n:
            out += bytes([b | 0x80])
        else:
            return out + bytes([b])


def fld(num, wt, payload):
    key = varint(num << 3 | wt)
    if wt == 0:
        return key + varint(payload)
    if wt == 2:
        return key + varint(len(payload)) + payload
    raise ValueError(wt)


def s(num, text):
    return fld(num, 2, text.encode() if isinstance(text, str) else text)


def packed(num, vals):
    return fld(num, 2, b"".join(varint(v) for v in vals))


STRINGS = ["", "cpu", "nanoseconds", "/bin/app", "main", "process.executable.build_id.gnu",
           "thread.name", "worker"]


def dictionary(stack=(1, 2), loc_fn=1, mapping=1, extra_attr=b"", strings=STRINGS):
    mappings = fld(1, 2, b"") + fld(1, 2, fld(1, 0, 0x1000) + fld(2, 0, 0x2000) + fld(4, 0, 3) +
                                    packed(5, [1]))
    locations = (fld(2, 2, b"") + fld(2, 2, fld(1, 0, mapping) + fld(2, 0, 0x1100)) +
                 fld(2, 2, fld(1, 0, 1) + fld(2, 0, 0x1200) + fld(3, 2, fld(1, 0, loc_fn) + fld(2, 0, 7))))
    functions = fld(3, 2, b"") + fld(3, 2, fld(1, 0, 4))
    links = fld(4, 2, b"")
    strs = b"".join(s(5, x) for x in strings)
    attrs = (fld(6, 2, b"") + fld(6, 2, fld(1, 0, 5) + fld(2, 2, s(1, "0123456789abcdef"))) +
             fld(6, 2, fld(1, 0, 6) + fld(2, 2, s(1, "worker"))) + extra_attr)
    stacks = fld(7, 2, b"") + fld(7, 2, packed(1, list(stack)))
    return mappings + locations + functions + links + strs + attrs + stacks


def sample(stack_index=1, values=(5,), attrs=(2,)):
    # 1.10.0: stack_index 1, attribute_indices 2, link_index 3, values 4.
    return fld(1, 0, stack_index) + packed(2, list(attrs)) + packed(4, list(values))


def data(dic=None, smp=None):
    prof = fld(1, 2, fld(1, 0, 1) + fld(2, 0, 2)) + fld(2, 2, smp if smp is not None else sample())
    scope = fld(2, 2, prof)
    rp = fld(1, 2, fld(1, 2, s(1, "process.pid") + fld(2, 2, fld(3, 0, 42)))) + fld(2, 2, scope)
    out = fld(1, 2, rp)
    if dic is not None:
        out += fld(2, 2, dic)
    return out


def deep_any(depth):
    v = s(1, "leaf")  # AnyValue{string_value}
    for _ in range(depth):
        v = fld(5, 2, fld(1, 2, v))  # AnyValue{array_value{values: v}}
    return v


def main():
    if len(sys.argv) == 3 and sys.argv[1] == "--big-attr":
        # A 2 MiB attribute value, uncompressed (made at test time: too big to keep).
        open(sys.argv[2], "wb").write(data(dictionary(
            extra_attr=fld(6, 2, fld(1, 0, 6) + fld(2, 2, s(1, "A" * (2 << 20)))))))
        return
    seeds = sys.argv[1] if len(sys.argv) > 1 else None
    good = data(dictionary())
    files = {
        "otlp-location-past-table.pb": data(dictionary(stack=(1, 9))),
        "otlp-function-past-table.pb": data(dictionary(loc_fn=7)),
        "otlp-stack-past-table.pb": data(dictionary(), sample(stack_index=5)),
        "otlp-no-dictionary.pb": data(None),
        "otlp-values-2-31.pb": data(dictionary(), fld(1, 0, 1) + fld(4, 2, b"")[:1] + varint(1 << 31) + b"\x01"),
        "otlp-deep-any.pb": data(dictionary(extra_attr=fld(6, 2, fld(1, 0, 6) + fld(2, 2, deep_any(200))))),
        "otlp-v19-layout.pb": data(dictionary(), fld(1, 0, 1) + packed(2, [5, 9000]) + packed(3, [2]) + fld(4, 0, 0)),
    }
    for name, b in files.items():
        open(name, "wb").write(b)
    big = data(dictionary(extra_attr=fld(6, 2, fld(1, 0, 6) + fld(2, 2, s(1, "A" * (100 << 20))))))
    with gzip.open("otlp-attr-100mb.pb.gz", "wb", 9) as f:
        f.write(big)
    deep_json = '{"resourceProfiles":[],"dictionary":{"attributeTable":[{"value":' + \
        '{"arrayValue":{"values":[' * 300 + '{}' + ']}}' * 300 + '}]}}'
    open("otlp-deep.json", "w").write(deep_json)
    if seeds:
        open(seeds + "/good.pb", "wb").write(good)
        open(seeds + "/v19.pb", "wb").write(files["otlp-v19-layout.pb"])
        open(seeds + "/good.json", "w").write(
            '{"resourceProfiles":[{"resource":{"attributes":[{"key":"process.pid","value":{"intValue":"7"}}]},'
            '"scopeProfiles":[{"profiles":[{"sampleType":{"typeStrindex":1,"unitStrindex":2},'
            '"samples":[{"stackIndex":1,"values":["3"],"timestampsUnixNano":["17"]}]}]}]}],'
            '"dictionary":{"mappingTable":[{},{"memoryStart":"4096","memoryLimit":"8192","filenameStrindex":3}],'
            '"locationTable":[{},{"mappingIndex":1,"address":"4352","lines":[{"functionIndex":1,"line":"7"}]}],'
            '"functionTable":[{},{"nameStrindex":4}],"stackTable":[{},{"locationIndices":[1]}],'
            '"attributeTable":[{}],"stringTable":["","cpu","nanoseconds","/bin/app","main\\u00e9"]}}\n')


main()
