import path from "node:path";
import { describeImport } from "../store/nedb-import.js";
import { openDocumentStore } from "../store/open-store.js";
import { indexesOf } from "./indexes-mixin.js";
import type { Config } from "./config.js";
import type { Catalog } from "./node.js";

/**
 * The deploy step before services roll (`main.js --migrate`, issue 21.5): opens the document
 * store and builds every service's indexes, whatever `SERVICES` names. Index builds carry no
 * time bound; an index whose options changed fails here, loudly, rather than at a service's start.
 */
export async function migrate(config: Config, catalog: Catalog, log: (line: string) => void): Promise<void> {
	const documents = await openDocumentStore({ mongoUrl: config.mongoUrl, dir: path.join(config.dataDir, "db"), onImport: imported => log(`migrate: ${describeImport(imported)}`), onUpgrade: line => log(`migrate: ${line}`) });
	try {
		for (const [name, entry] of Object.entries(catalog)) {
			const indexes = indexesOf(entry.schema);
			if (indexes === undefined) continue;
			await indexes(documents);
			log(`migrate: the ${name} service's indexes are in place`);
		}
	} finally {
		await documents.close();
	}
}
