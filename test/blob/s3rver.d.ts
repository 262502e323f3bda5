/** The part of s3rver 3 the blob store tests use; the package ships no types. */
declare module "s3rver" {
	import type { AddressInfo } from "node:net";

	export interface S3rverOptions {
		address?: string;
		port?: number;
		silent?: boolean;
		directory?: string;
		resetOnClose?: boolean;
		configureBuckets?: { name: string; configs?: (string | Buffer)[] }[];
	}

	export default class S3rver {
		constructor(options?: S3rverOptions);
		/** Resolves with the address the server listens on. */
		run(): Promise<AddressInfo>;
		close(): Promise<void>;
	}
}
