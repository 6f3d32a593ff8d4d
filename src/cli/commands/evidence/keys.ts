import { readFileSync } from "node:fs";
import { InvalidArgumentError } from "commander";
import { inputFile } from "../../input-files.js";

/** Key types as a person writes them, each with its article: Node names them in lower case. */
const KEY_TYPES: Readonly<Record<string, string>> = {
  rsa: "an RSA",
  "rsa-pss": "an RSA-PSS",
  dsa: "a DSA",
  ec: "an EC",
  dh: "a DH",
  ed448: "an Ed448",
  x25519: "an X25519",
  x448: "an X448",
};

/** The refusal of a key that is not Ed25519, naming its type as a person writes it ("an RSA key"). */
export function notEd25519(file: string, type: string | undefined): InvalidArgumentError {
  const named = KEY_TYPES[type ?? ""] ?? `a ${type ?? "an unknown"}`;
  return new InvalidArgumentError(`${file} is ${named} key; bundles are signed with Ed25519`);
}

/**
 * The bytes of a key file an option names; a usage error that says so when it does not exist or cannot
 * be read, rather than "holds no key" for a file that is not there.
 */
export function keyFileBytes(file: string): Buffer {
  try {
    return readFileSync(inputFile(file));
  } catch (error) {
    if (error instanceof InvalidArgumentError) throw error;
    const code = (error as NodeJS.ErrnoException).code;
    throw new InvalidArgumentError(
      code === "ENOENT" || code === "ENOTDIR" ? `${file} does not exist` : `${file} cannot be read (${code})`,
    );
  }
}
