/**
 * When a failed delivery is tried again (contract 17): exponential back-off from 1 minute,
 * doubling up to 6 hours between attempts, for 24 hours from when the delivery was recorded;
 * the last attempt falls at the 24-hour mark, and a delivery failing then is dropped.
 * Tests shorten these (the delivery worker's settings).
 */
export interface DeliverySchedule {
	firstRetryMs: number;
	maxRetryMs: number;
	giveUpAfterMs: number;
}

export const DELIVERY_SCHEDULE: DeliverySchedule = {
	firstRetryMs: 60 * 1000,
	maxRetryMs: 6 * 60 * 60 * 1000,
	giveUpAfterMs: 24 * 60 * 60 * 1000
};

/** When to try again after `attempts` failed attempts of a delivery recorded at `createTime`, or null to drop it. */
export function retryAt(schedule: DeliverySchedule, attempts: number, createTime: number, now: number): number | null {
	const deadline = createTime + schedule.giveUpAfterMs;
	if (now >= deadline) return null;
	const delay = Math.min(schedule.firstRetryMs * 2 ** Math.max(0, attempts - 1), schedule.maxRetryMs);
	return Math.min(now + delay, deadline);
}
