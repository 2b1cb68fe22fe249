/**
 * The committed word lists the demo data set is drawn from. Names are plain ASCII so that search,
 * e-mail addresses and sorting need no Unicode folding; companies are invented and their domains use
 * the reserved `.example` TLD, so nothing in the demo points at a real organisation.
 */

/** Given names. */
// biome-ignore format: a word list reads better packed than one entry a line
export const FIRST_NAMES = [
  'Ada', 'Adrian', 'Aisha', 'Alan', 'Alice', 'Amara', 'Andre', 'Anna', 'Arjun', 'Beatrice', 'Bruno',
  'Carlos', 'Chen', 'Chloe', 'Daniel', 'Dmitri', 'Elena', 'Emeka', 'Emma', 'Farah', 'Felix', 'Grace',
  'Hana', 'Hugo', 'Ines', 'Isaac', 'Ivan', 'Jamal', 'Julia', 'Kai', 'Kenji', 'Lara', 'Leila', 'Liam',
  'Lucia', 'Malik', 'Maria', 'Marco', 'Margaret', 'Mateo', 'Maya', 'Mei', 'Nadia', 'Noah', 'Olga', 'Omar',
  'Priya', 'Rafael', 'Rosa', 'Samir', 'Sara', 'Sofia', 'Tariq', 'Theo', 'Uma', 'Victor', 'Wei', 'Yara',
  'Yusuf', 'Zara',
] as const;

/** Family names. */
// biome-ignore format: a word list reads better packed than one entry a line
export const LAST_NAMES = [
  'Abbott', 'Adeyemi', 'Alvarez', 'Andersen', 'Baker', 'Banerjee', 'Bauer', 'Becker', 'Brown', 'Castro',
  'Chen', 'Cohen', 'Costa', 'Dubois', 'Eriksson', 'Fischer', 'Garcia', 'Gupta', 'Hansen', 'Hopper',
  'Ibrahim', 'Ivanova', 'Jensen', 'Johnson', 'Kim', 'Kowalski', 'Lambert', 'Lee', 'Lopez', 'Lovelace',
  'Martin', 'Mendes', 'Moreau', 'Nakamura', 'Nguyen', 'Novak', 'Okafor', 'Olsen', 'Patel', 'Petrov',
  'Quinn', 'Rossi', 'Sato', 'Schmidt', 'Silva', 'Singh', 'Smith', 'Suzuki', 'Tanaka', 'Turing', 'Varga',
  'Wagner', 'Walker', 'Wang', 'Weber', 'Williams', 'Yilmaz', 'Zhang',
] as const;

/** Job titles. */
// biome-ignore format: a word list reads better packed than one entry a line
export const TITLES = [
  'Account Executive', 'Backend Engineer', 'Brand Designer', 'Chief Financial Officer',
  'Chief Technology Officer', 'Customer Success Manager', 'Data Analyst', 'Data Engineer', 'Designer',
  'DevOps Engineer', 'Engineering Manager', 'Finance Manager', 'Frontend Engineer', 'Growth Marketer',
  'HR Business Partner', 'Legal Counsel', 'Machine Learning Engineer', 'Office Manager', 'Operations Lead',
  'Payments Specialist', 'Product Designer', 'Product Manager', 'QA Engineer', 'Recruiter',
  'Sales Director', 'Security Engineer', 'Site Reliability Engineer', 'Software Engineer',
  'Staff Engineer', 'Support Engineer', 'Technical Writer', 'UX Researcher',
] as const;

/** Employers (invented). */
// biome-ignore format: a word list reads better packed than one entry a line
export const COMPANIES = [
  'Acme Analytics', 'Aperture Logistics', 'Bluefin Labs', 'Brightwater Energy', 'Cobalt Freight',
  'Copperleaf Health', 'Driftwood Media', 'Ember Robotics', 'Evergreen Bank', 'Fieldstone Foods',
  'Foxglove Studios', 'Granite Insurance', 'Harbor Payments', 'Helix Genomics', 'Ironbark Mining',
  'Juniper Retail', 'Kestrel Aerospace', 'Lighthouse Legal', 'Lumen Solar', 'Maple Mobility',
  'Meridian Travel', 'Nimbus Cloud', 'Northwind Traders', 'Oakridge Realty', 'Orbit Telecom',
  'Pinecone Software', 'Quartz Security', 'Redwood Pharma', 'Saffron Hospitality', 'Sable Partners',
  'Silverline Rail', 'Skylark Games', 'Summit Outdoor', 'Tidewater Shipping', 'Topaz Fashion',
  'Umber Architecture', 'Vantage Consulting', 'Willow Education', 'Zephyr Wind', 'Zinnia Biotech',
] as const;

/** Cities. */
// biome-ignore format: a word list reads better packed than one entry a line
export const CITIES = [
  'Accra', 'Amsterdam', 'Athens', 'Austin', 'Bangalore', 'Barcelona', 'Berlin', 'Bogota', 'Boston',
  'Buenos Aires', 'Cairo', 'Cape Town', 'Chicago', 'Copenhagen', 'Dublin', 'Edinburgh', 'Helsinki',
  'Istanbul', 'Jakarta', 'Kyoto', 'Lagos', 'Lisbon', 'London', 'Lyon', 'Madrid', 'Melbourne',
  'Mexico City', 'Milan', 'Montreal', 'Mumbai', 'Nairobi', 'Osaka', 'Oslo', 'Paris', 'Prague',
  'San Francisco', 'Santiago', 'Sao Paulo', 'Seoul', 'Singapore', 'Stockholm', 'Sydney', 'Taipei', 'Tokyo',
  'Toronto', 'Vancouver', 'Vienna', 'Warsaw', 'Zurich',
] as const;
