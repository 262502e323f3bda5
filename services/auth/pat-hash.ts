import { createHash } from "node:crypto";

/** How a personal access token is kept and named in `auth.pat.deleted` (contract 16): its SHA-256, in hex. */
export function hashPat(token: string): string {
	return createHash("sha256").update(token).digest("hex");
}
