/** The two database engines SiteHall runs on; what differs between them is chosen by this value. */
export type Dialect = 'sqlite' | 'postgres';
