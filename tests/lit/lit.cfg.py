# lit configuration for ptxkit's PTX tests (modelled on LLVM's NVPTX tests).
#
# Substitutions: %ptxkit, FileCheck, %ptxas-verify (ptxas -arch=... reading stdin).
# lit 14 has no `%if`: %ptxas-verify is always defined, and without ptxas the helper script
# consumes its input and prints that the check was SKIPPED, so only the ptxas checks are skipped.
import os
import shutil
import lit.formats

config.name = "ptxkit"
config.test_format = lit.formats.ShTest(execute_external=True)
config.suffixes = [".test", ".ptx"]
config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = os.path.join(config.ptxkit_bin, "..", "tests", "lit-out")
config.excludes = ["Inputs", "lit.cfg.py"]

config.substitutions.append(("%ptxkit", os.path.join(config.ptxkit_bin, "ptxkit")))
config.substitutions.append(
    ("%reference-decode", os.path.join(config.ptxkit_bin, "ptxkit_reference_decode")))
config.substitutions.append(("FileCheck", config.filecheck or "FileCheck-14"))
config.substitutions.append(("%inputs", os.path.join(config.test_source_root, "Inputs")))

ptxas = config.ptxas if config.ptxas and os.path.exists(config.ptxas) else shutil.which("ptxas")
verify_script = os.path.join(config.test_source_root, "ptxas-verify.sh")
if ptxas:
    config.available_features.add("ptxas")
    config.substitutions.append(("%ptxas-verify", "%s %s" % (verify_script, ptxas)))
else:
    lit_config.note("ptxas not found: every %ptxas-verify line is SKIPPED")
    config.substitutions.append(("%ptxas-verify", "%s none" % verify_script))
