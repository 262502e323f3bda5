import type { Config } from "./config.js";
import { natsOptions } from "./broker-options.js";

/** NATS refusals that no retry can cure: the process stops instead of retrying forever. */
const REFUSALS: Record<string, string> = {
	AUTHORIZATION_VIOLATION: "NATS refused the credentials (check NATS_USER and NATS_PASSWORD, or NATS_TOKEN)",
	AUTHENTICATION_EXPIRED: "NATS credentials have expired",
	ACCOUNT_EXPIRED: "the NATS account has expired",
	TLS: "TLS with NATS failed (check the tls:// URL and NATS_TLS_CA_FILE, NATS_TLS_CERT_FILE, NATS_TLS_KEY_FILE)"
};

/**
 * Connects to NATS once with the process's credentials before the broker starts. Moleculer's
 * transporter retries a refused login every few seconds without end, so a wrong password would
 * leave a process that never joins and says so only in warnings. An unreachable server is left
 * to those retries: NATS may simply start later.
 */
export async function checkBusAccess(config: Config): Promise<void> {
	if (config.transporter === undefined) return;
	const { connect } = await import("nats");
	let connection;
	try {
		connection = await connect({ ...natsOptions(config), reconnect: false, timeout: 10_000, name: `${config.nodeId} (credentials check)` });
	} catch (err) {
		const code = (err as { code?: unknown }).code;
		const refusal = typeof code === "string" ? REFUSALS[code] : undefined;
		if (refusal === undefined) return;
		throw new Error(`${refusal}: ${(err as Error).message}`, { cause: err });
	}
	await connection.close();
}
