#!/usr/bin/env python3
"""sarif_schema_test.py PTXKIT SCHEMA PLANTED_PTX: `ptxkit verify --format sarif` output is valid
SARIF 2.1.0 by the official JSON schema.

Why: code-scanning services reject (or silently drop) a SARIF file that does not validate, and a
hand-written printer drifts from a 3000-line schema without anyone noticing. SCHEMA is the OASIS
SARIF 2.1.0 schema vendored in tests/schemas/ (the committee-specification version, draft-07,
the one json.schemastore.org serves for the "$schema" URL ptxkit writes), taken unmodified from
the oasis-tcs/sarif-spec repository (sarif-2.1/prose/sarif-schema-2.1.0.json).

Three real outputs are validated: a clean generated kernel, a planted defect (error findings
with related locations), and a directory tree (several artifacts, one in a directory whose name
needs percent-encoding in a URI). Negative controls prove the validator rejects what it must: a
result with level "fatal", a run without "tool", and an artifact URI with a raw space, so the
test cannot pass by validating nothing.
"""
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

from jsonschema import Draft7Validator, FormatChecker

# jsonschema checks "uri" and "uri-reference" only when optional packages (rfc3987) are present,
# which they are not everywhere; this character-level RFC 3986 check stands in so both formats
# are always enforced. A scheme-less reference may not have ':' in its first path segment.
_CHARS = r"(?:[A-Za-z0-9\-._~!$&'()*+,;=:@/?]|%[0-9A-Fa-f]{2})"
_FRAGMENT = r"(?:#" + _CHARS + r"*)?"
_URI = re.compile(r"[A-Za-z][A-Za-z0-9+.\-]*:" + _CHARS + r"*" + _FRAGMENT + r"\Z")
_RELATIVE_REF = re.compile(r"(?![^/?#]*:)" + _CHARS + r"*" + _FRAGMENT + r"\Z")


# A 16x16 tile written [tid.y][tid.x] and read transposed with no barrier between.
RACE_PTX = """.version 8.0
.target sm_90
.address_size 64
.visible .entry tile(.param .u64 out)
{
	.reg .b32 %r<12>;
	.reg .f32 %f<4>;
	.reg .b64 %rd<4>;
	.shared .align 4 .b8 s[1024];
	mov.u32 %r1, %tid.x;
	mov.u32 %r2, %tid.y;
	shl.b32 %r3, %r2, 4;
	add.s32 %r4, %r3, %r1;
	shl.b32 %r5, %r4, 2;
	mov.u32 %r6, s;
	add.s32 %r7, %r6, %r5;
	cvt.rn.f32.u32 %f1, %r4;
	st.shared.f32 [%r7], %f1;
	shl.b32 %r8, %r1, 4;
	add.s32 %r9, %r8, %r2;
	shl.b32 %r10, %r9, 2;
	add.s32 %r11, %r6, %r10;
	ld.shared.f32 %f2, [%r11];
	ld.param.u64 %rd1, [out];
	cvta.to.global.u64 %rd2, %rd1;
	mul.wide.u32 %rd3, %r4, 4;
	add.s64 %rd2, %rd2, %rd3;
	st.global.f32 [%rd2], %f2;
	ret;
}
"""


def make_validator(schema_path):
    with open(schema_path, encoding="utf-8") as f:
        schema = json.load(f)
    if schema.get("$schema") != "http://json-schema.org/draft-07/schema#":
        sys.exit("FAIL: %s does not declare draft-07: %r" % (schema_path, schema.get("$schema")))
    Draft7Validator.check_schema(schema)
    checker = FormatChecker()
    checker.checks("uri")(lambda s: not isinstance(s, str) or bool(_URI.match(s)))
    checker.checks("uri-reference")(
        lambda s: not isinstance(s, str) or bool(_URI.match(s) or _RELATIVE_REF.match(s)))
    return Draft7Validator(schema, format_checker=checker)


def errors_of(validator, doc):
    return ["%s: %s" % ("/".join(str(p) for p in e.absolute_path), e.message)
            for e in validator.iter_errors(doc)]


def run_sarif(ptxkit, args, want_exit):
    proc = subprocess.run([ptxkit, "verify", "--format", "sarif"] + args,
                          capture_output=True, text=True, check=False)
    if proc.returncode != want_exit:
        sys.exit("FAIL: verify %s: exit %d, want %d\n%s" %
                 (" ".join(args), proc.returncode, want_exit, proc.stderr))
    return json.loads(proc.stdout)


def expect_valid(validator, name, doc):
    errs = errors_of(validator, doc)
    if errs:
        sys.exit("FAIL: %s: the SARIF output violates the schema:\n  %s" % (name, "\n  ".join(errs)))
    print("ok: %s validates" % name)


def expect_rejected(validator, name, doc, needle):
    errs = errors_of(validator, doc)
    if not any(needle in e for e in errs):
        sys.exit("FAIL: negative control %s was not rejected for %r (errors: %s)" %
                 (name, needle, errs))
    print("ok: negative control %s is rejected" % name)


def results_of(doc):
    return doc["runs"][0]["results"]


def uris_of(doc):
    return [r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"]
            for r in results_of(doc)]


def main():
    if len(sys.argv) != 4:
        sys.exit("usage: sarif_schema_test.py PTXKIT SCHEMA PLANTED_PTX")
    ptxkit, schema_path, planted = sys.argv[1:]
    validator = make_validator(schema_path)
    tmp = tempfile.mkdtemp()
    try:
        clean = os.path.join(tmp, "clean.ptx")
        subprocess.run([ptxkit, "gen", "rmsnorm", "-o", clean], check=True)

        # (a) a clean generated kernel: valid, and no results.
        doc = run_sarif(ptxkit, [clean], 0)
        expect_valid(validator, "clean kernel", doc)
        if results_of(doc):
            sys.exit("FAIL: clean kernel has results: %s" % results_of(doc))

        # (b) a planted defect: valid, with error results pointing at the file.
        doc = run_sarif(ptxkit, [planted], 1)
        expect_valid(validator, "planted defect", doc)
        levels = {r["level"] for r in results_of(doc)}
        if "error" not in levels or not any(r["relatedLocations"] for r in results_of(doc)):
            sys.exit("FAIL: planted defect: no error result with related locations: %s" % doc)

        # (b2) a race with its witness (codeFlows, one threadFlow per thread) under a stated block
        # shape, and the same kernel without it: a warning whose assumption is in properties.
        race = os.path.join(tmp, "race.ptx")
        with open(race, "w") as f:
            f.write(RACE_PTX)
        doc = run_sarif(ptxkit, ["--rules", "shared-race", "--block-dim", "16,16", race], 1)
        expect_valid(validator, "race with a witness", doc)
        flows = [r["codeFlows"] for r in results_of(doc) if "codeFlows" in r]
        if not flows or len(flows[0][0]["threadFlows"]) != 2:
            sys.exit("FAIL: race: no codeFlows with two threadFlows: %s" % doc)
        doc = run_sarif(ptxkit, ["--rules", "shared-race", race], 0)
        expect_valid(validator, "race resting on the block shape", doc)
        if not any(r.get("properties", {}).get("assumptions") for r in results_of(doc)):
            sys.exit("FAIL: race without a block shape: no assumptions in properties: %s" % doc)

        # (c) a directory tree; one subdirectory name has a space and a '#', which a URI must
        # percent-encode.
        tree = os.path.join(tmp, "tree")
        odd = os.path.join(tree, "sub dir#1")
        os.makedirs(odd)
        shutil.copy(clean, os.path.join(tree, "a.ptx"))
        shutil.copy(planted, os.path.join(odd, "planted.ptx"))
        subprocess.run([ptxkit, "gen", "residual_add", "-o", os.path.join(tree, "z.ptx")],
                       check=True)
        doc = run_sarif(ptxkit, [tree], 1)
        expect_valid(validator, "directory", doc)
        uris = uris_of(doc)
        if not uris or not all(u.endswith("/sub%20dir%231/planted.ptx") for u in uris):
            sys.exit("FAIL: directory: result URIs do not name the nested file: %s" % uris)

        # Negative controls, each a copy of the valid directory output with one defect.
        bad = json.loads(json.dumps(doc))
        results_of(bad)[0]["level"] = "fatal"
        expect_rejected(validator, "level fatal", bad, "'fatal' is not one of")
        bad = json.loads(json.dumps(doc))
        del bad["runs"][0]["tool"]
        expect_rejected(validator, "run without tool", bad, "'tool' is a required property")
        bad = json.loads(json.dumps(doc))
        results_of(bad)[0]["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] = \
            os.path.join(odd, "planted.ptx")
        expect_rejected(validator, "raw space in a URI", bad, "is not a 'uri-reference'")
    finally:
        shutil.rmtree(tmp)
    print("sarif schema test: OK")


if __name__ == "__main__":
    main()
