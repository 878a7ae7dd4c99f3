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
