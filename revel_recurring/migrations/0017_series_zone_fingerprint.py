from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ("revel_recurring", "0016_webhooks"),
    ]

    operations = [
        migrations.AddField(
            model_name="eventseries",
            name="zone_fingerprint",
            field=models.CharField(
                blank=True,
                default="",
                editable=False,
                help_text=(
                    "The UTC offsets of the rule's zone up to the generation cursor, as the "
                    "dates were placed (revel_recurring.rules.zone_data)."
                ),
                max_length=64,
                verbose_name="time-zone data fingerprint",
            ),
        ),
    ]
