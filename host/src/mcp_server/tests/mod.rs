mod mapping;
mod served;
