import type { EmbeddedApp } from "./embedded-app.js";
import { memoClient, type MemoClient } from "./memos-client.js";
import { startPopulatedApp, type Population, type Session } from "./users.js";

export interface PopulatedAppSuite {
	/** The running app (its `baseUrl`, `node`, `dataDir`, `admin`, `users`). */
	app(): EmbeddedApp & Population;
	/** A memo API client of the app. */
	api: MemoClient;
	admin(): Session;
	/** One accessor per signed-in USER, `user1` first. */
	users: (() => Session)[];
}

/**
 * Registers jest hooks that start a fresh embedded app with `admin` and `count` USERs before
 * the suite's tests and stop it after them. The accessors work inside tests and in hooks
 * registered after this call (jest runs `beforeAll` hooks in order).
 */
export function usePopulatedApp(count: number, env: Record<string, string> = {}): PopulatedAppSuite {
	let running: (EmbeddedApp & Population) | undefined;
	const app = () => {
		if (!running) throw new Error("the populated app is not running yet: use it inside tests or later hooks");
		return running;
	};
	beforeAll(async () => {
		running = await startPopulatedApp(count, env);
	});
	afterAll(async () => {
		await running?.stop();
	});
	return {
		app,
		api: memoClient(() => app().baseUrl),
		admin: () => app().admin,
		users: Array.from({ length: count }, (_, i) => () => app().users[i])
	};
}
